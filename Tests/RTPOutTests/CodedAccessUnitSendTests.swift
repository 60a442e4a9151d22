import Bitstream
import Foundation
import Testing
@testable import RTP
@testable import RTPOut

/// `RTPSender.send(_: CodedAccessUnit)`: the sender owns the RTP timestamp (media time in, 90 kHz + its offset out)
/// and takes the NAL units and keyframe flag as the producer found them.
@Suite(.serialized)
struct CodedAccessUnitSendTests {
    /// AVCC-style framing (2-byte lengths): the sender reads only the ranges, never the framing.
    static func lengthPrefixed(_ nalUnits: [ArraySlice<UInt8>], isKeyframe: Bool, at time: MediaTime) -> CodedAccessUnit {
        var bytes: [UInt8] = []
        var ranges: [CodedAccessUnit.NALUnit] = []
        for unit in nalUnits {
            bytes += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)]
            ranges.append(.init(type: unit[unit.startIndex] & 0x1F, range: bytes.count ..< bytes.count + unit.count))
            bytes += unit
        }
        return CodedAccessUnit(codec: .h264, bytes: bytes, framing: .lengthPrefixed(lengthSize: 2), nalUnits: ranges,
                               isKeyframe: isKeyframe, presentationTime: time)
    }

    @Test func senderStampsMediaTimeWithItsOffset() throws {
        let received = Collector<ReceivedAccessUnit>()
        let receiver = try RTPReceiver(configuration: .init(localAddress: SocketAddress(host: "127.0.0.1", port: 0))) { received.append($0) }
        // The offset makes the 32-bit timestamp wrap between the second and third access unit.
        let offset = UInt32.max - 4000
        let sender = try RTPSender(configuration: .init(destination: receiver.localRTPAddress, pacing: .unpaced, timestampOffset: offset))
        let units = [
            [nal(0x67, size: 8), nal(0x68, size: 4), nal(0x65, size: 3000)],
            [nal(0x41, size: 700)],
            [nal(0x41, size: 20), nal(0x41, size: 30)],
        ]
        // 1001/30000 s per frame (29.97 Hz): 3003 ticks of 90 kHz each.
        var stamped: [UInt32] = []
        for (i, unit) in units.enumerated() {
            let time = MediaTime(value: Int64(i) * 1001, timescale: 30_000)
            stamped.append(try sender.send(Self.lengthPrefixed(unit, isKeyframe: i == 0, at: time)))
        }
        #expect(eventually { received.all.count == 3 })
        let statistics = sender.statistics
        sender.close()
        receiver.close()
        let expected: [UInt32] = [offset, offset &+ 3003, offset &+ 6006]
        #expect(stamped == expected)
        #expect(expected[2] < expected[1], "the offset wraps the timestamp")
        #expect(received.all.map(\.timestamp) == expected)
        #expect(received.all.map(\.nalUnits) == units.map { $0.map { Array($0) } })
        // Counted from the producer's flag: the sender does not look at NAL unit types.
        #expect(statistics.accessUnitsSent == 3 && statistics.keyframesSent == 1)
    }

    @Test(arguments: [
        ("HEVC", CodedAccessUnit(codec: .hevc, bytes: [0x26, 0x01, 0xAF], framing: .annexB,
                                 nalUnits: [.init(type: 19, range: 0..<3)], isKeyframe: true, presentationTime: .zero),
         RTPError.Code.unsupported),
        ("range past the end", CodedAccessUnit(codec: .h264, bytes: [0x65, 0x88], framing: .annexB,
                                               nalUnits: [.init(type: 5, range: 0..<3)], isKeyframe: true, presentationTime: .zero),
         .invalidValue),
        ("empty range", CodedAccessUnit(codec: .h264, bytes: [0x65, 0x88], framing: .annexB,
                                        nalUnits: [.init(type: 5, range: 1..<1)], isKeyframe: true, presentationTime: .zero),
         .invalidValue),
        ("time scale 0", CodedAccessUnit(codec: .h264, bytes: [0x65, 0x88], framing: .annexB,
                                         nalUnits: [.init(type: 5, range: 0..<2)], isKeyframe: true,
                                         presentationTime: MediaTime(value: 1, timescale: 0)),
         .invalidValue),
    ])
    func badAccessUnitsAreRefusedAndNothingIsSent(name: String, unit: CodedAccessUnit, code: RTPError.Code) throws {
        let sink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let sender = try RTPSender(configuration: .init(destination: sink.localAddress, pacing: .unpaced))
        defer { sender.close(drainTimeout: .zero) }
        let error = #expect(throws: RTPError.self, "\(name)") { try sender.send(unit) }
        #expect(error?.code == code, "\(name): \(String(describing: error))")
        #expect(sender.statistics.packetsSent == 0 && sender.statistics.accessUnitsSent == 0)
    }
}

/// The SDP from what the sender saw, and the SDP file written whole, with the mode its key demands.
@Suite(.serialized)
struct SessionDescriptionFromSenderTests {
    @Test func sdpComesFromTheFirstKeyframesParameterSets() throws {
        let sink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let sender = try RTPSender(configuration: .init(destination: sink.localAddress, pacing: .unpaced))
        defer { sender.close(drainTimeout: .zero) }
        #expect(sender.sessionDescription() == nil, "nothing seen yet")
        let sps = nal(0x67, size: 12), pps = nal(0x68, size: 5)
        try sender.send(CodedAccessUnitSendTests.lengthPrefixed([nal(0x41, size: 50)], isKeyframe: false, at: .zero))
        #expect(sender.sessionDescription() == nil, "a P frame carries no parameter sets")
        try sender.send(CodedAccessUnitSendTests.lengthPrefixed([sps, pps, nal(0x65, size: 900)], isKeyframe: true,
                                                                at: MediaTime(value: 1, timescale: 30)))
        let sdp = try #require(sender.sessionDescription())
        #expect(sdp == sender.sessionDescription(sequenceParameterSet: Array(sps), pictureParameterSet: Array(pps)))
        #expect(try ReceivedSessionDescription(parsing: sdp.text).parameterSets == [Array(sps), Array(pps)])
    }

    @Test(arguments: [false, true])
    func sdpFileIsWrittenWholeWithItsMode(srtp: Bool) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rtenc-sdp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("stream.sdp").path
        try "stale".write(toFile: path + ".partial", atomically: false, encoding: .utf8)  // a killed run's leftover
        let key = try SRTPConfiguration(masterKeyAndSalt: (0 ..< 30).map { UInt8($0) })
        let sink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let sender = try RTPSender(
            configuration: .init(destination: sink.localAddress, pacing: .unpaced, srtp: srtp ? key : nil),
            sequenceParameterSet: Array(nal(0x67, size: 12)), pictureParameterSet: Array(nal(0x68, size: 5)))
        defer { sender.close(drainTimeout: .zero) }
        let sdp = try #require(sender.sessionDescription(), "given at creation")
        try sdp.write(toFile: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == sdp.text)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == (srtp ? 0o600 : 0o644))
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
        #expect(sdp.text.contains("a=crypto:") == srtp)
        // A directory that does not exist: a typed error naming the call, nothing written.
        let error = #expect(throws: RTPError.self) { try sdp.write(toFile: directory.path + "/missing/stream.sdp") }
        #expect(error?.code == .system)
        #expect(error?.reason.contains("open(") == true)
    }
}
