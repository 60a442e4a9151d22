import Foundation
import TestSupport
import RTPOut
import Testing

/// The peer's RTCP drives the running encoder: REMB and TMMBR lower the bit rate (and its cap), PLI forces an IDR.
@Suite(.serialized) struct StreamFeedbackTests {
    enum Feedback: String, CaseIterable, Sendable {
        case remb, tmmbr

        func packets(mediaSSRC: UInt32, bitrate: UInt64) -> [RTCPPacket] {
            let receiver: UInt32 = 0xFEED_0001
            let report = RTCPPacket.receiverReport(ReceiverReport(ssrc: receiver))
            switch self {
            case .remb:
                return [report, .receiverEstimatedMaximumBitrate(
                    ReceiverEstimatedMaximumBitrate(senderSSRC: receiver, bitrate: bitrate, ssrcs: [mediaSSRC]))]
            case .tmmbr:
                return [report, .temporaryMaximumBitrateRequest(TemporaryMaximumBitrate(
                    senderSSRC: receiver, entries: [.init(ssrc: mediaSSRC, bitrate: bitrate, overhead: 40)]))]
            }
        }
    }

    /// Streams `seconds` at 1 Mb/s (320x240), sends each of `limits` as `feedback` to its RTCP port at its time
    /// (seconds after the port is bound), and returns `target_kbps` of every --stats-json line.
    static func targets(
        seconds: Int, limits: [(at: Double, bitsPerSecond: UInt64)], as feedback: Feedback, ssrc: UInt32
    ) throws -> [Double?] {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let localPort = TestPorts.next()
        let statsPath = dir.appendingPathComponent("stats.jsonl").path
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "--duration", "\(seconds)", "--size", "320x240", "--bitrate", "1M", "--ssrc", "\(ssrc)",
            "--local-port", "\(localPort)", "--to", "127.0.0.1:\(TestPorts.next())",
            "--sdp", dir.appendingPathComponent("s.sdp").path, "--stats-json", statsPath, "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: localPort + 1, timeout: 10))
        var elapsed = 0.0
        for limit in limits {
            usleep(useconds_t((limit.at - elapsed) * 1e6))
            elapsed = limit.at
            try sendUDP(RTCPCompound.marshal(feedback.packets(mediaSSRC: ssrc, bitrate: limit.bitsPerSecond)), to: localPort + 1)
        }
        let result = stream.finish(within: 10)
        #expect(result.status == 0, "\(result.stderrText)")
        return try String(contentsOfFile: statsPath, encoding: .utf8).split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["target_kbps"] as? Double
        }
    }

    @Test(arguments: Feedback.allCases)
    func peerBitrateLimitLowersTheTarget(_ feedback: Feedback) throws {
        let targets = try Self.targets(seconds: 4, limits: [(1.5, 400_000)], as: feedback, ssrc: 0x1234_5678)
        #expect(targets.first == 1000)
        #expect(targets.last == 400, "\(targets)")
    }

    /// A later, higher limit raises the rate again, never above --bitrate: REMB 300 kb/s, then 5 Mb/s (the peer's
    /// estimate recovered) brings the target back to the 1 Mb/s ceiling, through the same controller.
    @Test func aHigherLimitRaisesTheTargetToTheCeiling() throws {
        let targets = try Self.targets(
            seconds: 5, limits: [(1.2, 300_000), (2.7, 5_000_000)], as: .remb, ssrc: 0x1234_5679)
        #expect(targets.first == 1000)
        #expect(targets.contains(300), "\(targets)")
        #expect(targets.last == 1000, "\(targets)")
        #expect(!targets.contains { ($0 ?? 0) > 1000 }, "\(targets)")
    }
}

/// One datagram from an ephemeral port on 127.0.0.1 (as GStreamer sends its RTCP).
func sendUDP(_ bytes: [UInt8], to port: UInt16) throws {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    guard fd >= 0 else { throw ToolError("socket: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let sent = bytes.withUnsafeBytes { buffer in
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
    guard sent == bytes.count else { throw ToolError("sendto: \(errno)") }
}

/// `rtenc receive` joining a running stream (GOP 7200: no IDR coming) asks for one and decodes.
@Suite(.serialized) struct LateReceiverTests {
    @Test func rtencReceiveJoiningLateAsksForAKeyframeAndDecodes() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next()
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "--duration", "4", "--size", "320x240", "--to", "127.0.0.1:\(port)",
            "--sdp", dir.appendingPathComponent("s.sdp").path, "--quiet",
            "--join-keyframes", "off",  // the IDR must come from the PLI, not from the periodic ones
        ], deadline: 30)
        usleep(1_500_000)
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--decode", "--timeout", "10", "--quiet",
        ], deadline: 30)
        let sent = stream.finish(within: 10)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = receiver.finish(within: 5)
        let report = try #require(try JSONSerialization.jsonObject(with: received.stdout) as? [String: Any],
                                  "\(received.stderrText)")
        #expect((report["plis_sent"] as? Int ?? 0) >= 1)
        #expect((report["keyframes"] as? Int ?? 0) >= 1, "no IDR answered the PLI")
        // Joined with ~2.5 s (75 frames) left; decoding from within 1 s leaves at least 45 frames.
        #expect((report["decoded_frames"] as? Int ?? 0) >= 45, "\(report)")
    }
}
