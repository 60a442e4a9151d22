import Testing
@testable import RTP
@testable import RTPOut

/// Inputs the fuzz targets (fuzz/, docs/FUZZING.md) found, each with the property it broke. Kept byte for byte as
/// libFuzzer wrote them (minimised where noted), so the fix is pinned to the real finding.
struct FuzzRegressionTests {
    /// FuzzRTPPacket: a one-byte header extension element with ID 0 and L = 1 was kept as an element, which then could
    /// not be marshalled (IDs are 1…14); RFC 8285 §4.2 reserves ID 0 for padding, so it is skipped byte by byte now.
    static let oneByteExtensionIDZero: [UInt8] = [
        0xB2,  // V=2 P=1 X=1 CC=2
        0xE0,  // M=1 PT=96
        0xFF, 0xFF,  // sequence number 65535
        0xFF, 0xFF, 0xFF, 0xFF,  // timestamp
        0x12, 0x34, 0x56, 0x78,  // SSRC
        0x00, 0x00, 0x00, 0x01,  // CSRC 1
        0x00, 0x00, 0x00, 0x02,  // CSRC 2
        0xBE, 0xDE, 0x00, 0x01,  // RFC 8285 one-byte profile, 1 word
        0x01, 0x00, 0x00, 0x00,  // ID=0 L=1: padding, not an element; then three padding bytes
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x84, 0x00, 0x21,  // payload
        0x00, 0x00, 0x00, 0x04,  // 4 padding bytes, count in the last
    ]

    @Test func oneByteExtensionElementWithIDZeroIsPadding() throws {
        let packet = try RTPPacket(parsing: Self.oneByteExtensionIDZero)
        #expect(packet.header.extension == .oneByte([]))
        #expect(packet.header.csrcs == [1, 2])
        #expect(packet.payload.count == 14)
        #expect(packet.paddingSize == 4)
        let again = try RTPPacket(parsing: try packet.marshal())
        #expect(again == packet)
    }

    /// The element after an ID-0 byte is still read.
    @Test func elementAfterIDZeroByteIsRead() throws {
        var bytes = Array(Self.oneByteExtensionIDZero.prefix(24))
        bytes[0] = 0x92  // V=2 P=0 X=1 CC=2
        bytes += [0x01, 0x10, 0x7F, 0x00]  // ID=0 L=1 (skipped), ID=1 L=0: one byte 7F, padding
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.header.extension == .oneByte([.init(id: 1, data: [0x7F])]))
        #expect(try RTPPacket(parsing: try packet.marshal()) == packet)
    }
}
