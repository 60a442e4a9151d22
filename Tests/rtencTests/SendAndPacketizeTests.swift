import Foundation
import RTPOut
import TestSupport
import Testing

/// `rtenc send` of ffmpeg-made files to real receivers, and `rtenc packetize`'s view of the same packets.
@Suite(.serialized) struct SendAndPacketizeTests {
    static func makeFile(_ name: String, in dir: URL, size: String = "640x360", seconds: Int = 3,
                         extra: [String] = []) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try LavfiMedia.testsrc2(path, size: size, frames: seconds * 30,
                               arguments: ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "30"] + extra)
        return path
    }

    @Test func ffmpegDecodesAnFFmpegMadeFileWeSend() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.makeFile("in.h264", in: dir)
        let sdp = dir.appendingPathComponent("send.sdp").path
        let port = TestPorts.next()
        let send = try BackgroundProcess(CLIRunner.rtencPath, [
            "send", file, "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--start-delay", "3", "--quiet",
        ], deadline: 30)
        let ffmpeg = try FFmpegSDPReceiver(sdp: sdp, port: port)
        let sent = send.finish(within: 15)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = ffmpeg.finish()
        #expect(received.frames.count >= 86, "decoded \(received.frames.count) of 90: \(received.log.suffix(600))")
        #expect(received.log.contains("640x360"))
    }

    @Test func anMP4SentUnpacedArrivesWhole() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.makeFile("in.mp4", in: dir, seconds: 2)
        let port = TestPorts.next()
        let received = dir.appendingPathComponent("got.h264").path
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--decode", "--timeout", "20", "-o", received, "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let sent = try CLIRunner.rtenc([
            "send", file, "--no-pacing", "--to", "127.0.0.1:\(port)", "--sdp", dir.appendingPathComponent("s.sdp").path,
            "--quiet",
        ], timeout: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let result = receiver.finish(within: 5)
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
                                  "\(result.stderrText)")
        #expect(report["frames"] as? Int == 60)
        #expect(report["decoded_frames"] as? Int == 60)
        #expect(report["decode_errors"] as? Int == 0)
        // What arrived is what `rtenc annexb` makes of the same MP4, NAL unit for NAL unit.
        let reference = dir.appendingPathComponent("ref.h264").path
        #expect(try CLIRunner.rtenc(["annexb", file, "-o", reference]).status == 0)
        let ours = try Data(contentsOf: URL(fileURLWithPath: received))
        let theirs = try Data(contentsOf: URL(fileURLWithPath: reference))
        #expect(ours == theirs)
    }

    /// Unpaced to a port nobody listens on: every packet still goes out (the same count as to a bound socket), and
    /// with nobody listening the BYE linger is skipped (here 5 s, which the run stays far below).
    @Test func unpacedToNobodySendsEveryPacketAndEndsPromptly() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.makeFile("in.h264", in: dir, size: "1280x720", seconds: 4, extra: ["-b:v", "4M"])
        let sdp = dir.appendingPathComponent("s.sdp").path
        func packetsSent(_ port: UInt16, byeDelay: String) throws -> (packets: String?, seconds: Double, refused: Bool) {
            let start = Date()
            let result = try CLIRunner.rtenc(["send", file, "--no-pacing", "--to", "127.0.0.1:\(port)", "--sdp", sdp,
                                              "--bye-delay", byeDelay], timeout: 30)
            #expect(result.status == 0, "\(result.stderrText)")
            let packets = result.stderrText.firstMatch(of: /in (\d+) packets/).map { String($0.1) }
            return (packets, Date().timeIntervalSince(start), result.stderrText.contains("not listening"))
        }
        // Bound, never read: "listening" as far as ICMP goes.
        let sink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: TestPorts.next()))
        let toSink = try packetsSent(sink.localAddress.port, byeDelay: "0")
        let toNobody = try packetsSent(TestPorts.next(), byeDelay: "5")
        #expect(toSink.packets != nil && toNobody.packets == toSink.packets, "\(toNobody.packets ?? "?") vs \(toSink.packets ?? "?")")
        // The linger is skipped. The kernel rate-limits ICMP errors (net.ipv4.icmp_msgs_per_sec, a burst of 50), so
        // the last packets of the unpaced burst may draw no refusal (the project's CI took 12.8 s when the skip
        // depended on them); the refusals earlier in the stream make the sender probe at the linger's start
        // (`RTPSendSession+Goodbye`), and the probe's refusal ends it.
        // A host that never reports a refusal (ICMP filtered or limited to nothing) leaves nothing to end the linger
        // on: the stream's last word is then the 5 s linger, as designed, and the promptness cannot be judged.
        if toNobody.refused {
            #expect(toNobody.seconds < 4, "took \(toNobody.seconds) s with --bye-delay 5 and nobody listening (to a bound socket: \(toSink.seconds) s)")
        } else {
            withKnownIssue("this host reported no ICMP port unreachable at all: the linger cannot be cut short", isIntermittent: true) {
                #expect(toNobody.seconds < 4, "took \(toNobody.seconds) s with --bye-delay 5, no refusal seen")
            }
        }
        #expect(toNobody.seconds < 20, "took \(toNobody.seconds) s")
    }

    /// The project CI's kernel reproduced here: inside a network namespace an nftables rule lets ICMP destination
    /// unreachable out at 20 a second after a burst of 5 (as the kernel's `icmp_msgs_per_sec` does on kernels that
    /// limit loopback; this one does not), so the last packets of the unpaced burst draw no refusal. The refusals
    /// earlier make the sender probe during the linger, and a probe's refusal ends it: far below the 5 s.
    @Test(.enabled(if: namespaceProblem == nil, "skipped: needs unshare --net (root or unprivileged user namespaces) and nft (Debian nftables, scripts/deps.sh): \(namespaceProblem ?? "")"))
    func unpacedToNobodyEndsPromptlyWhenICMPIsRateLimited() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.makeFile("in.h264", in: dir, size: "1280x720", seconds: 4, extra: ["-b:v", "4M"])
        let script = """
            /usr/sbin/ip link set lo up || exit 90
            printf '%s\\n' 'table inet icmplimit { chain out { type filter hook output priority 0; icmp type destination-unreachable limit rate over 20/second burst 5 packets drop; }; }' | /usr/sbin/nft -f - || exit 91
            exec "$0" send "$1" --no-pacing --to 127.0.0.1:5999 --sdp "$2" --bye-delay 5
            """
        let start = Date()
        let result = try Tool.run("/usr/bin/unshare", ServeWHEPTests.namespaceArguments + [
            "/bin/sh", "-c", script, CLIRunner.rtencPath, file, dir.appendingPathComponent("s.sdp").path,
        ], timeout: 30)
        let seconds = Date().timeIntervalSince(start)
        try #require(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("not listening"), "\(result.stderrText)")
        #expect(seconds < 4, "took \(seconds) s with --bye-delay 5, nobody listening and ICMP rate-limited: \(result.stderrText)")
    }

    /// unshare --net works here (root, or user namespaces allowed) and nft is installed.
    static let namespaceProblem: String? = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft") else { return "no /usr/sbin/nft" }
        guard let probe = try? Tool.run("/usr/bin/unshare", ServeWHEPTests.namespaceArguments + ["true"], timeout: 10),
              probe.status == 0 else { return "unshare --net is not permitted here" }
        return nil
    }()

    @Test(arguments: ["-1", "10.5", "nan"])
    func byeDelayOutOfRangeIsAUsageError(value: String) throws {
        let result = try CLIRunner.rtenc(["send", "x.h264", "--bye-delay", value])
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(result.stderrText.contains("bye-delay"))
    }

    struct PacketizeCase: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var maxSize: Int
        var expectSTAPA: Bool
        var testDescription: String { name }
    }

    static let packetizeCases: [PacketizeCase] = [
        PacketizeCase(name: "default: 1200 bytes, zero-latency STAP-A", arguments: [], maxSize: 1212, expectSTAPA: true),
        PacketizeCase(name: "mtu 500, no aggregation", arguments: ["--mtu", "500", "--aggregation", "none"],
                      maxSize: 512, expectSTAPA: false),
        PacketizeCase(name: "mtu 1400, max aggregation", arguments: ["--mtu", "1400", "--aggregation", "max"],
                      maxSize: 1412, expectSTAPA: true),
    ]

    @Test(arguments: packetizeCases)
    func packetizeShowsWellFormedPackets(_ testCase: PacketizeCase) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.makeFile("in.h264", in: dir, size: "640x360", seconds: 1, extra: ["-x264-params", "slices=2"])
        let result = try CLIRunner.rtenc(["packetize", file] + testCase.arguments)
        try #require(result.status == 0, "\(result.stderrText)")
        let packets = try result.stdoutText.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(packets.allSatisfy { ($0["size"] as? Int ?? .max) <= testCase.maxSize })
        #expect(packets.map { $0["sequence"] as? Int } == packets.indices.map { $0 })
        // One marker per access unit, on its last packet; 30 access units.
        let units = Dictionary(grouping: packets, by: { $0["access_unit"] as? Int ?? -1 })
        #expect(units.count == 30)
        for (_, unitPackets) in units {
            #expect(unitPackets.filter { $0["marker"] as? Bool == true }.count == 1)
            #expect(unitPackets.last?["marker"] as? Bool == true)
        }
        #expect(packets.contains { $0["payload"] as? String == "STAP-A" } == testCase.expectSTAPA)
        // FU-A fragments of one NAL unit are of equal size, ±1 byte (libwebrtc): no runt last packet.
        var fragments: [Int] = []
        for packet in packets where packet["payload"] as? String == "FU-A" {
            if packet["fu_start"] as? Bool == true { fragments = [] }
            fragments.append((packet["nal_sizes"] as? [Int])?.first ?? 0)
            if packet["fu_end"] as? Bool == true {
                #expect(fragments.count >= 2)
                #expect((fragments.max() ?? 0) - (fragments.min() ?? 0) <= 1, "\(fragments)")
            }
        }
    }

    @Test func packetizationMode0RefusesALargeNALUnitAndSaysHowToFixIt() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.makeFile("in.h264", in: dir, seconds: 1)
        let result = try CLIRunner.rtenc(["packetize", file, "--mode", "0"])
        #expect(result.status == 1)
        #expect(result.stderrText.contains("packetization-mode 1"))
        #expect(result.stderrText.split(separator: "\n").count == 1)
    }
}

