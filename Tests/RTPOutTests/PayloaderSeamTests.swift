import Foundation
import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

/// The codec seam: `RTPPayloader`/`RTPDepacketizer` with H.264 as the first implementation, driven only through the
/// protocols, and a second payloader plugged into the same `RTPPacketizer`.
struct PayloaderSeamTests {
    /// Packetizes through any payloader and depacketizes through any depacketizer: the code a new codec reuses.
    static func roundTrip<P: RTPPayloader, D: RTPDepacketizer>(
        _ units: [CodedAccessUnit], payloader: P, depacketizer: inout D
    ) throws -> [ReceivedAccessUnit] {
        let packetizer = try RTPPacketizer(payloader: payloader, payloadType: 96, ssrc: 9, sequencer: RTPSequencer(initial: 65530))
        var received: [ReceivedAccessUnit] = []
        for unit in units {
            let timestamp = RTPClock.timestamp(unit.presentationTime)
            try packetizer.packetize(try unit.checkedNALUnits(for: payloader.codec), timestamp: timestamp) { bytes, _, _ in
                let packet = try! RTPPacket(parsing: Array(bytes))
                depacketizer.push(packet, arrival: nil) { if case .accessUnit(let au) = $0 { received.append(au) } }
            }
        }
        depacketizer.flush { if case .accessUnit(let au) = $0 { received.append(au) } }
        return received
    }

    /// Length-prefixed (AVCC, 4-byte) access units: the payloader reads the ranges, not the framing.
    static func avcc(_ nalUnits: [ArraySlice<UInt8>], isKeyframe: Bool, frame: Int64) -> CodedAccessUnit {
        lengthPrefixed(nalUnits, codec: .h264, isKeyframe: isKeyframe, frame: frame)
    }

    /// Length-prefixed (4-byte) access units of either codec.
    static func lengthPrefixed(_ nalUnits: [ArraySlice<UInt8>], codec: VideoCodec, isKeyframe: Bool, frame: Int64) -> CodedAccessUnit {
        var bytes: [UInt8] = []
        var ranges: [CodedAccessUnit.NALUnit] = []
        for unit in nalUnits {
            bytes += withUnsafeBytes(of: UInt32(unit.count).bigEndian, Array.init)
            ranges.append(.init(type: codec.nalUnitType(firstByte: unit[unit.startIndex]), range: bytes.count ..< bytes.count + unit.count))
            bytes += unit
        }
        return CodedAccessUnit(codec: codec, bytes: bytes, framing: .lengthPrefixed(lengthSize: 4), nalUnits: ranges,
                               isKeyframe: isKeyframe, presentationTime: MediaTime(value: frame, timescale: 30))
    }

    @Test func h264ThroughTheProtocols() throws {
        let units = [
            Self.avcc([nal(0x67, size: 10), nal(0x68, size: 4), nal(0x65, size: 2500)], isKeyframe: true, frame: 0),
            Self.avcc([nal(0x41, size: 300)], isKeyframe: false, frame: 1),
            Self.avcc([nal(0x41, size: 1200), nal(0x01, size: 40)], isKeyframe: false, frame: 2),
        ]
        let payloader = try H264Payloader(configuration: .init(maxPayloadSize: 1000))
        #expect(payloader.codec == .h264 && payloader.clockRate == 90_000 && payloader.maxPayloadSize == 1000)
        var depacketizer = H264Depacketizer()
        let received = try Self.roundTrip(units, payloader: payloader, depacketizer: &depacketizer)
        #expect(received.map(\.nalUnits) == units.map { $0.nalUnitBytes.map(Array.init) })
        #expect(received.map(\.timestamp) == [0, 3000, 6000])
        #expect(received.map(\.accessUnit.isKeyframe) == [true, false, false])
    }

    /// The protocol's `payload(CodedAccessUnit)` refuses another codec and ranges outside the bytes.
    @Test(arguments: [
        ("HEVC", CodedAccessUnit(codec: .hevc, bytes: [0x26, 0x01, 0xAF], framing: .annexB,
                                 nalUnits: [.init(type: 19, range: 0..<3)], isKeyframe: true, presentationTime: .zero),
         RTPError.Code.unsupported),
        ("range past the end", CodedAccessUnit(codec: .h264, bytes: [0x65, 0x88], framing: .annexB,
                                               nalUnits: [.init(type: 5, range: 1..<4)], isKeyframe: true, presentationTime: .zero),
         .invalidValue),
    ])
    func payloadRefuses(name: String, unit: CodedAccessUnit, code: RTPError.Code) throws {
        let payloader = try H264Payloader()
        var packets = 0
        let error = #expect(throws: RTPError.self, "\(name)") { try payloader.payload(unit) { _, _ in packets += 1 } }
        #expect(error?.code == code, "\(name)")
        #expect(packets == 0)
    }

    /// A second payload format plugs into the same packetizer: one NAL unit per packet, behind a 2-byte header
    /// (the shape of HEVC's RFC 7798 single NAL unit packets), written into its own reused buffer.
    final class TwoByteHeaderPayloader: RTPPayloader {
        let codec = VideoCodec.hevc
        let clockRate: Int64 = 90_000
        let headroom = RTPHeader.fixedSize
        let maxPayloadSize = 1200
        private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: RTPHeader.fixedSize + 1200, alignment: 8)
        deinit { buffer.deallocate() }

        func payload(_ nalUnits: [ArraySlice<UInt8>], emit: (UnsafeMutableRawBufferPointer, Bool) -> Void) throws(RTPError) {
            for (index, unit) in nalUnits.enumerated() {
                guard unit.count <= maxPayloadSize else { throw .make(.invalidValue, "too large") }
                buffer.baseAddress!.advanced(by: headroom).copyMemory(from: Array(unit), byteCount: unit.count)
                emit(UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< headroom + unit.count]), index == nalUnits.count - 1)
            }
        }
    }

    @Test func anotherPayloaderPlugsIntoThePacketizer() throws {
        let packetizer = try RTPPacketizer(payloader: TwoByteHeaderPayloader(), payloadType: 98, ssrc: 0xABCD,
                                           sequencer: RTPSequencer(initial: 65535))
        let unit = CodedAccessUnit(codec: .hevc, bytes: [0, 0, 0, 1, 0x40, 0x01, 0xAA, 0, 0, 0, 1, 0x26, 0x01, 0xBB, 0xCC],
                                   framing: .annexB, nalUnits: [.init(type: 32, range: 4..<7), .init(type: 19, range: 11..<15)],
                                   isKeyframe: true, presentationTime: MediaTime(value: 1, timescale: 30))
        var packets: [RTPPacket] = []
        try packetizer.packetize(try unit.checkedNALUnits(for: .hevc), timestamp: 3000) { bytes, _, _ in
            packets.append(try! RTPPacket(parsing: Array(bytes)))
        }
        #expect(packets.map(\.header.sequenceNumber) == [65535, 0])
        #expect(packets.map(\.header.marker) == [false, true])
        #expect(packets.allSatisfy { $0.header.payloadType == 98 && $0.header.ssrc == 0xABCD && $0.header.timestamp == 3000 })
        #expect(packets.map { Array($0.payload) } == [[0x40, 0x01, 0xAA], [0x26, 0x01, 0xBB, 0xCC]])
    }
}
