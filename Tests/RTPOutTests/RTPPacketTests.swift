import Testing
@testable import RTP
@testable import RTPOut

struct RTPPacketTests {
    static let plain: [UInt8] = [
        0x80,  // V=2 P=0 X=0 CC=0
        0x60,  // M=0 PT=96
        0x12, 0x34,  // sequence number 0x1234
        0x00, 0x00, 0x03, 0xE8,  // timestamp 1000
        0xDE, 0xAD, 0xBE, 0xEF,  // SSRC
        0x01, 0x02, 0x03,  // payload
    ]

    static let full: [UInt8] = [
        0xB1,  // V=2 P=1 X=1 CC=1
        0xE0,  // M=1 PT=96
        0xFF, 0xFF,  // sequence number 65535
        0x00, 0x00, 0x00, 0x01,  // timestamp 1
        0x11, 0x22, 0x33, 0x44,  // SSRC
        0xAA, 0xBB, 0xCC, 0xDD,  // CSRC 1
        0xBE, 0xDE, 0x00, 0x01,  // RFC 8285 one-byte profile, 1 word
        0x11, 0xAB, 0xCD, 0x00,  // ID=1 L=1 (2 bytes) AB CD, one padding byte
        0x05, 0x06,  // payload
        0x00, 0x00, 0x03,  // 3 padding bytes, count in the last
    ]

    static let twoByte: [UInt8] = [
        0x90, 0x60, 0x00, 0x01,  // V=2 X=1, PT=96, seq 1
        0x00, 0x00, 0x00, 0x00,  // timestamp 0
        0x00, 0x00, 0x00, 0x02,  // SSRC 2
        0x10, 0x03, 0x00, 0x01,  // RFC 8285 two-byte profile, appbits 3, 1 word
        0x05, 0x02, 0xAA, 0xBB,  // ID=5 length 2: AA BB
        0x09,  // payload
    ]

    @Test func parsesPlain() throws {
        let packet = try RTPPacket(parsing: Self.plain)
        #expect(packet.header.payloadType == 96)
        #expect(packet.header.sequenceNumber == 0x1234)
        #expect(packet.header.timestamp == 1000)
        #expect(packet.header.ssrc == 0xDEAD_BEEF)
        #expect(!packet.header.marker)
        #expect(Array(packet.payload) == [1, 2, 3])
        #expect(try packet.marshal() == Self.plain)
    }

    @Test func parsesCSRCExtensionAndPadding() throws {
        let packet = try RTPPacket(parsing: Self.full)
        #expect(packet.header.marker)
        #expect(packet.header.csrcs == [0xAABB_CCDD])
        #expect(packet.header.extension == .oneByte([.init(id: 1, data: [0xAB, 0xCD])]))
        #expect(Array(packet.payload) == [5, 6])
        #expect(packet.paddingSize == 3)
        #expect(packet.marshalSize == Self.full.count)
        #expect(try packet.marshal() == Self.full)
    }

    @Test func parsesTwoByteExtension() throws {
        let packet = try RTPPacket(parsing: Self.twoByte)
        #expect(packet.header.extension == .twoByte(appBits: 3, [.init(id: 5, data: [0xAA, 0xBB])]))
        #expect(try packet.marshal() == Self.twoByte)
    }

    @Test func marshalIntoBufferDoesNotNeedMoreThanMarshalSize() throws {
        let packet = try RTPPacket(parsing: Self.full)
        var buffer = [UInt8](repeating: 0xEE, count: packet.marshalSize)
        let n = try buffer.withUnsafeMutableBytes { try packet.marshal(into: $0) }
        #expect(n == Self.full.count)
        #expect(buffer == Self.full)
        var small = [UInt8](repeating: 0, count: packet.marshalSize - 1)
        let error = #expect(throws: RTPError.self) { try small.withUnsafeMutableBytes { try packet.marshal(into: $0) } }
        #expect(error?.code == .outputTooSmall)
    }

    @Test func dripFeedWithPadding() {
        dripFeed(Self.full) { bytes throws(RTPError) in try RTPPacket(parsing: bytes) }
    }

    @Test func dripFeedHeaders() {
        // A packet without padding may legally end anywhere after its header, so only header prefixes must fail.
        for length in 0 ..< 12 {
            #expect(throws: RTPError.self) { try RTPPacket(parsing: Self.plain[0 ..< length]) }
        }
        for length in 0 ..< 20 {
            #expect(throws: RTPError.self) { try RTPPacket(parsing: Self.twoByte[0 ..< length]) }
        }
    }

    @Test(arguments: [
        ([0x40, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1] as [UInt8], RTPError.Code.invalidValue),  // version 1
        ([0xA0, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x05] as [UInt8], .invalidValue),  // padding 5 > 1 byte
        ([0xA0, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x00] as [UInt8], .invalidValue),  // padding count 0
        ([0x90, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xBE, 0xDE, 0, 1, 0x13, 1] as [UInt8], .truncated),  // ext says 1 word
        ([0x90, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xBE, 0xDE, 0, 1, 0x13, 1, 2, 0] as [UInt8], .truncated),  // ID1 L=3 needs 4
        ([0x81, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0] as [UInt8], .truncated),  // CC=1, 2 CSRC bytes
    ])
    func rejects(bytes: [UInt8], code: RTPError.Code) {
        let error = #expect(throws: RTPError.self) { try RTPPacket(parsing: bytes) }
        #expect(error?.code == code)
    }

    @Test func extensionElementLimits() {
        var header = RTPHeader(payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: 0)
        header.extension = .oneByte([.init(id: 15, data: [1])])
        let packet = RTPPacket(header: header, payload: [])
        #expect((try? packet.marshal()) == nil)
        header.extension = .oneByte([.init(id: 1, data: ArraySlice(repeating: 0, count: 17))])
        #expect((try? RTPPacket(header: header, payload: []).marshal()) == nil)
        header.csrcs = Array(repeating: 1, count: 16)
        header.extension = nil
        let error = #expect(throws: RTPError.self) { try RTPPacket(header: header, payload: []).marshal() }
        #expect(error?.code == .fieldOverflow)
    }

    @Test func oneByteIDFifteenStopsParsing() throws {
        let bytes: [UInt8] = [
            0x90, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1,
            0xBE, 0xDE, 0x00, 0x01,  // one word
            0x10, 0x77, 0xF0, 0x55,  // ID=1 L=0: 77, then ID=15 ends the element list
        ]
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.header.extension == .oneByte([.init(id: 1, data: [0x77])]))
    }
}
