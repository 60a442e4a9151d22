import Foundation
import TestSupport
import Glibc
import Testing

/// `rtenc stream` → `rtenc relay` (the userspace impairment relay: this kernel has no netem) → `rtenc receive`, all
/// on loopback: loss with reordering and delay, a whole IDR lost, a peer that is not listening yet, and an RTCP
/// flood. Serialized: each runs an encoder in real time, and the figures are about rtenc, not about two encoders
/// sharing two cores. Every process is bounded (BackgroundProcess deadlines, CLIRunner timeouts).
@Suite(.serialized) struct NetworkFaultTests {
    /// The last line of a process's stdout as a JSON object (receive and relay print their report there).
    static func report(_ result: ProcessResult) throws -> [String: Any] {
        let line = result.stdoutText.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                            "no JSON report: \(result.stderrText.suffix(500))")
    }

    static func statsLines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Starts `rtenc receive` on `port` and a relay from `relayPort` to it, and waits until both are bound.
    static func startReceiverAndRelay(port: UInt16, relayPort: UInt16, receiveArguments: [String] = [],
                                      relayArguments: [String]) throws -> (BackgroundProcess, BackgroundProcess) {
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--decode", "--timeout", "25", "--quiet",
        ] + receiveArguments, deadline: 40)
        let relay = try BackgroundProcess(CLIRunner.rtencPath, [
            "relay", "--listen", "\(relayPort)", "--bind", "127.0.0.1", "--to", "127.0.0.1:\(port)", "--duration", "25",
            "--quiet",
        ] + relayArguments, deadline: 40)
        try #require(waitUntilBound(udpPort: port, timeout: 10), "receive did not bind \(port)")
        try #require(waitUntilBound(udpPort: relayPort, timeout: 10), "relay did not bind \(relayPort)")
        return (receiver, relay)
    }

    /// 150 frames of 640×360 streamed through a relay with `relayArguments` to a decoding receiver: the receiver's
    /// and the relay's reports, and the frames decoded. Without join keyframes: these tests are about what feedback
    /// brings, and the periodic IDRs sent before the receiver's first report would blur the counts.
    static func streamThroughRelay(
        relayArguments: [String], receiveArguments: [String] = [], streamArguments: [String] = []
    ) throws -> (received: [String: Any], relayed: [String: Any], decoded: Int) {
        let run = try streamThroughRelayCountingSent(
            relayArguments: relayArguments, receiveArguments: receiveArguments, streamArguments: streamArguments)
        return (run.received, run.relayed, run.decoded)
    }

    /// The frames `rtenc stream` says it sent on its last line ("sent N frames (…)"): 150 less any it skipped for
    /// falling behind real time.
    static func framesSent(_ stderr: String) -> Int? {
        stderr.matches(of: /sent (\d+) frames \(/).last.flatMap { Int($0.output.1) }
    }

    /// `streamThroughRelay`, also giving how many frames the sender sent (it logs them: not `--quiet`).
    static func streamThroughRelayCountingSent(
        relayArguments: [String], receiveArguments: [String] = [], streamArguments: [String] = []
    ) throws -> (received: [String: Any], relayed: [String: Any], decoded: Int, framesSent: Int) {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next(), relayPort = TestPorts.next(), localPort = TestPorts.next()
        let (receiver, relay) = try startReceiverAndRelay(
            port: port, relayPort: relayPort, receiveArguments: receiveArguments, relayArguments: relayArguments)
        let sent = try CLIRunner.rtenc([
            "stream", "--frames", "150", "--size", "640x360", "--to", "127.0.0.1:\(relayPort)", "--local-port", "\(localPort)",
            "--sdp", dir.appendingPathComponent("s.sdp").path, "--join-keyframes", "off",
        ] + streamArguments, timeout: 30)
        #expect(sent.status == 0, "\(sent.stderrText)")
        // The BYE may itself be lost on the way: then the receiver is stopped (it reports all the same).
        let received = try report(receiver.finish(within: 3))
        let relayed = try report(relay.finish(within: 0))
        let sentCount = try #require(Self.framesSent(sent.stderrText), "no 'sent N frames' line: \(sent.stderrText.suffix(400))")
        return (received, relayed, received["decoded_frames"] as? Int ?? 0, sentCount)
    }

    /// 5 % random loss, 5 % of packets reordered, 30 ms each way. With NACK the receiver gets (almost) every frame;
    /// without, each loss costs the access unit it hit, and PLI brings the picture back with a new IDR.
    @Test(arguments: [true, false])
    func lossReorderingAndDelay(nack: Bool) throws {
        let (received, relayed, decoded) = try Self.streamThroughRelay(
            relayArguments: ["--loss", "5", "--reorder", "5", "--delay", "30", "--seed", "7"],
            receiveArguments: nack ? [] : ["--no-nack"])
        print("NetworkFaultTests: 5% loss + 5% reorder + 30 ms, NACK \(nack ? "on" : "off"): decoded \(decoded)/150;",
              "receiver \(received); relay \(relayed)")
        // The impairment really happened.
        #expect((relayed["dropped_loss"] as? Int ?? 0) >= 5, "\(relayed)")
        #expect((relayed["reordered"] as? Int ?? 0) >= 5, "\(relayed)")
        #expect((relayed["rtcp_back_out"] as? Int ?? 0) >= 1, "no receiver RTCP reached the sender: \(relayed)")
        #expect(received["decode_errors"] as? Int == 0, "\(received)")
        if nack {
            #expect(decoded >= 149, "decoded \(decoded) of 150 with NACK: \(received)")
            #expect((received["nacks_sent"] as? Int ?? 0) >= 1)
        } else {
            #expect((received["access_units_dropped"] as? Int ?? 0) >= 1, "no frame lost without NACK? \(received)")
            #expect((received["plis_sent"] as? Int ?? 0) >= 1)
            #expect((received["keyframes"] as? Int ?? 0) >= 2, "no IDR answered the PLIs: \(received)")
            // After losses the picture comes back: far more decoded than the 150 minus a frame per lost packet.
            #expect(decoded >= 100, "decoded \(decoded) of 150 without NACK: \(received)")
        }
    }

    /// The same network with a fifth of the receiver's RTCP lost on its way back: NACKs that vanish are sent again
    /// (NACKScheduler: every 100 ms, 3 times), so recovery still works, a little less completely.
    @Test func lostFeedbackIsAskedForAgain() throws {
        let (received, relayed, decoded) = try Self.streamThroughRelay(
            relayArguments: ["--loss", "5", "--delay", "30", "--return-loss", "20", "--seed", "5"])
        print("NetworkFaultTests: 5% loss + 30 ms + 20% return loss, NACK on: decoded \(decoded)/150;",
              "receiver \(received); relay \(relayed)")
        #expect((relayed["rtcp_back_lost"] as? Int ?? 0) >= 1, "no feedback was lost: \(relayed)")
        #expect((relayed["rtcp_back_out"] as? Int ?? 0) >= 1, "\(relayed)")
        #expect(received["decode_errors"] as? Int == 0, "\(received)")
        // Every lost packet is asked for again while its NACK goes unanswered: more NACKs than holes.
        let lost = relayed["dropped_loss"] as? Int ?? 0
        #expect((received["nacks_sent"] as? Int ?? 0) > lost / 2, "\(received)")
        // Three requests 100 ms apart fail together for about 1 in 60 holes (a NACK lost on the way back, or its
        // retransmission on the way out), more often when a loaded machine delays the answers: such a hole is given up
        // after 300 ms (`packets_lost`), the access units around it are dropped (one, or two when the hole sits on a
        // boundary) and a PLI brings the picture back, ~11 frames later. With ~18 holes the expected number given up is
        // 0.25–0.45, so up to 3 is within chance (P(≥ 4) ≈ 0.1 %); without the repeats (a quarter of single NACKs fail)
        // it would be about 4. Each costs no more than that round trip; with none, at most the last two frames are
        // missing (the BYE).
        let unrecovered = received["packets_lost"] as? Int ?? 0
        #expect(unrecovered <= 3, "\(unrecovered) holes not filled by NACK: \(received)")
        #expect(decoded >= 148 - 12 * unrecovered, "decoded \(decoded) of 150: \(received)")
        if unrecovered > 0 { #expect((received["plis_sent"] as? Int ?? 0) >= 1, "\(received)") }
    }

    /// Every packet of the IDR at frame 60 (and of its retransmissions) is dropped: the receiver sees the hole,
    /// drops the next frame, sends PLI, and a new IDR arrives within a second.
    @Test func lostIDRIsReplacedAfterPLI() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("received.h264").path
        let (received, relayed, _) = try Self.streamThroughRelay(
            relayArguments: ["--drop-frames", "60"], receiveArguments: ["-o", output], streamArguments: ["--force-idr", "60"])
        #expect((relayed["dropped_frames"] as? Int ?? 0) >= 1, "\(relayed)")
        #expect((received["plis_sent"] as? Int ?? 0) >= 1, "\(received)")
        // The first IDR and the one answering the PLI; the forced one at frame 60 never arrived.
        #expect(received["keyframes"] as? Int == 2, "\(received)")
        // Where the new IDR sits among the access units received (ffprobe's packets: every one, decodable or not):
        // #0…#59 are frames 0…59; frame 60 was lost and 61 dropped (a loss right before it), so #n is frame n + 2.
        let probe = try CLIRunner.run("ffprobe", ["-v", "error", "-show_entries", "packet=flags", "-of", "csv=p=0", output],
                                      timeout: 30)
        let keyframes = probe.stdoutText.split(separator: "\n").enumerated().filter { $0.element.hasPrefix("K") }.map(\.offset)
        #expect(keyframes.first == 0, "\(keyframes)")
        let resumed = try #require(keyframes.dropFirst().first, "no second IDR in the received stream")
        let framesLate = resumed + 2 - 60
        print("NetworkFaultTests: IDR at frame 60 lost; the next IDR is frame \(resumed + 2), \(framesLate) frames",
              "(\(framesLate * 1000 / 30) ms) later; receiver \(received)")
        #expect(resumed >= 60 && framesLate < 30, "new IDR \(framesLate) frames after the lost one: more than 1 s")
        #expect((received["decoded_frames"] as? Int ?? 0) >= 150 - 1 - 30, "\(received)")
    }

    /// Nobody listens on the destination for 5 s (ICMP port unreachable); the sender keeps going, and a receiver
    /// that then appears asks for an IDR and decodes.
    @Test func senderSurvivesAnAbsentPeerAndALateReceiverDecodes() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next(), localPort = TestPorts.next()
        let statsPath = dir.appendingPathComponent("stats.jsonl").path
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "--duration", "8", "--size", "640x360", "--to", "127.0.0.1:\(port)", "--local-port", "\(localPort)",
            "--sdp", dir.appendingPathComponent("s.sdp").path, "--stats-json", statsPath, "--quiet",
            "--join-keyframes", "off",  // the IDR must come from the receiver's PLI
        ], deadline: 30)
        usleep(5_000_000)
        #expect(stream.isRunning, "the sender stopped while nobody listened")
        let receiver = try CLIRunner.rtenc([
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--decode", "--timeout", "10", "--quiet",
        ], timeout: 20)
        let sent = stream.finish(within: 10)
        #expect(sent.status == 0 && !sent.terminatedBySignal, "\(sent.stderrText)")
        let received = try Self.report(receiver)
        print("NetworkFaultTests: late receiver \(received)")
        #expect((received["plis_sent"] as? Int ?? 0) >= 1, "\(received)")
        #expect((received["keyframes"] as? Int ?? 0) >= 1, "\(received)")
        // Joined with ~3 s (90 frames) left: decoding from within 1 s leaves at least 60.
        #expect((received["decoded_frames"] as? Int ?? 0) >= 60, "\(received)")
        let lines = try Self.statsLines(statsPath)
        #expect(lines.dropLast().allSatisfy { ($0["fps"] as? Double ?? 0) >= 28 }, "\(lines.map { $0["fps"] ?? "?" })")
        #expect((lines.last?["keyframes"] as? Int ?? 0) >= 2, "no IDR answered the PLI")
    }

    /// 10 000 RTCP datagrams a second for 3 s at the sender's RTCP port — garbage, receiver reports and NACKs for
    /// its SSRC — while it streams: it keeps its frame rate every second and ends normally.
    @Test func rtcpFloodDoesNotSlowTheStream() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next(), localPort = TestPorts.next()
        let statsPath = dir.appendingPathComponent("stats.jsonl").path
        let sdp = dir.appendingPathComponent("s.sdp").path
        let ssrc: UInt32 = 0x1234_5678
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "--duration", "6", "--size", "640x360", "--to", "127.0.0.1:\(port)", "--local-port", "\(localPort)",
            "--ssrc", "\(ssrc)", "--sdp", sdp, "--stats-json", statsPath, "--quiet",
        ], deadline: 30)
        try #require(waitForFile(sdp, timeout: 10), "no SDP written")
        usleep(1_000_000)
        let sent = try RTCPFlooder.flood(port: localPort + 1, ssrc: ssrc, perSecond: 10_000, for: 3)
        let result = stream.finish(within: 15)
        #expect(result.status == 0 && !result.terminatedBySignal, "\(result.stderrText)")
        let lines = try Self.statsLines(statsPath)
        print("NetworkFaultTests: RTCP flood of \(sent) datagrams; fps per second \(lines.map { $0["fps"] ?? "?" })")
        #expect(sent >= 25_000, "the flood itself fell short: \(sent)")
        #expect(lines.count >= 5)
        #expect(lines.dropLast().allSatisfy { ($0["fps"] as? Double ?? 0) >= 28 }, "\(lines.map { $0["fps"] ?? "?" })")
    }
}

/// Sends RTCP at a fixed rate from loopback: a third garbage, a third empty receiver reports (RFC 3550 §6.4.2), a
/// third generic NACKs (RFC 4585 §6.2.1) naming the flooded stream's SSRC.
enum RTCPFlooder {
    static func flood(port: UInt16, ssrc: UInt32, perSecond: Int, for seconds: Double) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw ToolError("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let be = { (value: UInt32) -> [UInt8] in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        var generator = SystemRandomNumberGenerator()
        let receiverReport: [UInt8] = [0x80, 201, 0, 1] + be(0xCAFE)  // V=2 RC=0 PT=RR length=1, SSRC
        func nack(_ sequenceNumber: UInt16) -> [UInt8] {
            // V=2 FMT=1 PT=RTPFB length=3, sender SSRC, media SSRC, PID, BLP
            [0x81, 205, 0, 3] + be(0xCAFE) + be(ssrc) + [UInt8(sequenceNumber >> 8), UInt8(sequenceNumber & 0xFF), 0, 0]
        }
        let batch = perSecond / 100  // every 10 ms
        var sent = 0
        let start = Date()
        var tick = 0
        while Date().timeIntervalSince(start) < seconds {
            for i in 0 ..< batch {
                let datagram: [UInt8] = switch i % 3 {
                case 0: (0 ..< Int.random(in: 1 ... 64, using: &generator)).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
                case 1: receiverReport
                default: nack(UInt16.random(in: 0 ... .max, using: &generator))
                }
                let result = datagram.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
                if result > 0 { sent += 1 }
            }
            tick += 1
            let next = start.addingTimeInterval(Double(tick) / 100)
            let wait = next.timeIntervalSinceNow
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        }
        return sent
    }
}
