import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// Losses at the very start of a stream, end to end: `rtenc stream` → `rtenc relay` → `rtenc receive --decode`, on
/// loopback. A receiver cannot tell that a packet before the first one it saw is missing, so it must notice what it
/// lacks — parameter sets, an IDR — and ask: with a NACK for the packets just before the first one (an IDR came
/// without SPS/PPS: `start_packets_nacked`), or with a PLI; or take the parameter sets from the SDP. Every case must
/// decode all but at most 10 frames (0.33 s at 30 fps), and the report's NACK and PLI counts (with `pli_reasons`)
/// must say how. Runs are independent (own ports, own processes) and cost little CPU at 640×360, so they run side by side.
@Suite(.serialized) struct StartRecoveryTests {
    struct Run: Sendable {
        var name: String
        var relay: [String]
        var receive: [String] = []
        var stream: [String] = []
        var frames = 150
        /// Give the receiver the sender's SDP (its sprop-parameter-sets), with `--port` for the relay's side.
        var sdp = false
        /// Save the received stream (`-o`) and count the frames ffmpeg decodes from the file.
        var saveOutput = false
        /// `stream`'s join keyframes (an IDR every 0.5 s until the receiver's first report, for players that never
        /// report). Off where the test is about what the receiver asks for: they would hide it.
        var joinKeyframes = false
    }

    struct Outcome: @unchecked Sendable {
        var received: [String: Any]
        var relayed: [String: Any]
        /// Frames ffprobe decoded from the `-o` file, with `saveOutput`.
        var decodedFromFile: Int?
        var decoded: Int { received["decoded_frames"] as? Int ?? 0 }
        var plis: Int { received["plis_sent"] as? Int ?? 0 }
        var nacks: Int { received["nacks_sent"] as? Int ?? 0 }
        var keyframes: Int { received["keyframes"] as? Int ?? 0 }
        var reasons: [String: Int] { received["pli_reasons"] as? [String: Int] ?? [:] }
        var startNacked: Int { received["start_packets_nacked"] as? Int ?? 0 }
        var startRecovered: Int { received["start_packets_recovered"] as? Int ?? 0 }
    }

    /// Port pairs of their own (20200…32198 by process id and call, above `TestPorts` and below the kernel's
    /// ephemeral range): up to 60 are held at once here, more than the shared `TestPorts` cycle of 50 leaves free.
    static let portCounter = Mutex(0)
    static func nextPort() -> UInt16 {
        let call = portCounter.withLock { value in
            value += 1
            return value % 400
        }
        return UInt16(20_200 + Int(getpid() % 15) * 800 + call * 2)
    }

    static func execute(_ run: Run) throws -> Outcome {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = nextPort(), relayPort = nextPort(), localPort = nextPort()
        let sdp = dir.appendingPathComponent("s.sdp").path
        let output = dir.appendingPathComponent("received.h264").path
        let seconds = Double(run.frames) / 30
        let streamArguments = [
            "stream", "--frames", "\(run.frames)", "--size", "640x360", "--to", "127.0.0.1:\(relayPort)",
            "--local-port", "\(localPort)", "--sdp", sdp, "--quiet",
        ] + (run.sdp ? ["--start-delay", "1.5"] : []) + (run.joinKeyframes ? [] : ["--join-keyframes", "off"]) + run.stream
        // With an SDP the sender comes first (it writes the SDP, then waits); else the receiver and relay do.
        var stream: BackgroundProcess?
        if run.sdp {
            stream = try BackgroundProcess(CLIRunner.rtencPath, streamArguments, deadline: seconds + 30)
            guard waitForFile(sdp, timeout: 10) else { throw ToolError("\(run.name): no SDP written") }
        }
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--decode", "--timeout", "\(Int(seconds) + 20)", "--quiet",
        ] + (run.sdp ? ["--sdp", sdp] : []) + (run.saveOutput ? ["-o", output] : []) + run.receive, deadline: seconds + 35)
        let relay = try BackgroundProcess(CLIRunner.rtencPath, [
            "relay", "--listen", "\(relayPort)", "--bind", "127.0.0.1", "--to", "127.0.0.1:\(port)",
            "--duration", "\(Int(seconds) + 20)", "--quiet",
        ] + run.relay, deadline: seconds + 35)
        guard waitUntilTaken(udpPort: port, timeout: 10), waitUntilTaken(udpPort: relayPort, timeout: 10) else {
            let receiveError = receiver.finish(within: 0).stderrText, relayError = relay.finish(within: 0).stderrText
            _ = stream?.finish(within: 0)
            throw ToolError("\(run.name): receive (\(port)) or relay (\(relayPort)) did not bind: \(receiveError) \(relayError)")
        }
        if stream == nil { stream = try BackgroundProcess(CLIRunner.rtencPath, streamArguments, deadline: seconds + 30) }
        let sent = stream?.finish(within: seconds + 25)
        guard let sent, sent.status == 0, !sent.terminatedBySignal else {
            throw ToolError("\(run.name): stream failed: \(sent?.stderrText ?? "")")
        }
        // The BYE may itself be lost on the way: then the receiver is stopped (it reports all the same).
        let received = try NetworkFaultTests.report(receiver.finish(within: 3))
        let relayed = try NetworkFaultTests.report(relay.finish(within: 0))
        var decodedFromFile: Int?
        if run.saveOutput {
            let probe = try CLIRunner.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                     "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", output], timeout: 30)
            decodedFromFile = Int(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return Outcome(received: received, relayed: relayed, decodedFromFile: decodedFromFile)
    }

    /// True once 127.0.0.1:`port` cannot be bound any more (something else has it). Not `waitUntilBound`: with
    /// dozens of sockets open, /proc/net/udp outgrows the one page it reads.
    static func waitUntilTaken(udpPort port: UInt16, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard fd >= 0 else { return false }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            let taken = result != 0 && errno == EADDRINUSE
            close(fd)
            if taken { return true }
            usleep(50_000)
        }
        return false
    }

    /// Runs `runs` at most `parallel` at a time; the outcomes in the order of `runs`.
    static func executeAll(_ runs: [Run], parallel: Int) -> [Result<Outcome, any Error>] {
        let results = Mutex<[Int: Result<Outcome, any Error>]>([:])
        let next = Mutex(0)
        // Threads of our own: concurrentPerform would run only as many at once as there are cores, and these runs
        // spend their time waiting on real-time streams, not computing.
        let group = DispatchGroup()
        for _ in 0 ..< min(parallel, runs.count) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while true {
                    let index = next.withLock { value in
                        defer { value += 1 }
                        return value
                    }
                    guard index < runs.count else { return }
                    let result = Result { try execute(runs[index]) }
                    results.withLock { $0[index] = result }
                }
            }
        }
        group.wait()
        return results.withLock { all in runs.indices.map { all[$0] ?? .failure(ToolError("not run")) } }
    }

    static func describe(_ outcome: Outcome) -> String {
        let r = outcome.received
        return "decoded \(outcome.decoded)/\(r["frames"] ?? "?") AUs, keyframes \(outcome.keyframes), nacks \(outcome.nacks), "
            + "plis \(outcome.plis) \(outcome.reasons), start packets nacked \(outcome.startNacked) recovered \(outcome.startRecovered), lost \(r["packets_lost"] ?? "?"), dropped AUs \(r["access_units_dropped"] ?? "?"), "
            + "decode errors \(r["decode_errors"] ?? "?"); relay dropped \(outcome.relayed["dropped"] ?? "?")"
    }

    /// The first packet (once, with its retransmissions, and the first two), the first ten, a fragment of the first
    /// IDR (once, and with its retransmissions), a fragment of a first IDR of ~55 packets, the whole first access
    /// unit; and the first packet with the SDP's parameter sets at hand. 30 ms each way, like the README's relay
    /// example.
    @Test func lossesAtTheStartCostAtMostTenFrames() throws {
        let runs = [
            Run(name: "first packet (STAP-A with SPS/PPS) lost", relay: ["--drop-packets", "0", "--delay", "30"]),
            Run(name: "first 10 packets lost", relay: ["--drop-packets", "0-9", "--delay", "30"]),
            Run(name: "a fragment of the first IDR lost", relay: ["--drop-packets", "2", "--delay", "30"]),
            Run(name: "whole first access unit lost", relay: ["--drop-frames", "0", "--delay", "30"]),
            Run(name: "IDR fragment lost with every retransmission of it",
                relay: ["--drop-packets", "2", "--drop-retransmissions", "--delay", "30"]),
            // ~55 packets a frame: the hole must stay open (reorder window) until the NACK's answer is back.
            Run(name: "a fragment of a large first IDR lost (720p noise at 8 Mb/s)", relay: ["--drop-packets", "5", "--delay", "30"],
                stream: ["testsrc:noise", "--size", "1280x720", "--bitrate", "8M"]),
            Run(name: "first packet lost, receiver has the SDP", relay: ["--drop-packets", "0", "--delay", "30"], sdp: true,
                saveOutput: true),
            Run(name: "first two packets (STAP-A and the IDR's first) lost", relay: ["--drop-packets", "0-1", "--delay", "30"]),
            Run(name: "first packet lost with every retransmission of it",
                relay: ["--drop-packets", "0", "--drop-retransmissions", "--delay", "30"]),
        ]
        // Seven at a time: more left the 720p noise stream short of CPU on 2 busy cores (frames encoded late).
        let outcomes = Self.executeAll(runs, parallel: 7)
        for (run, result) in zip(runs, outcomes) {
            let outcome: Outcome
            do { outcome = try result.get() } catch {
                Issue.record("\(run.name): \(error)")
                continue
            }
            print("StartRecoveryTests: \(run.name): \(Self.describe(outcome))")
            // The impairment really happened.
            #expect((outcome.relayed["dropped"] as? Int ?? 0) >= 1, "\(run.name): \(outcome.relayed)")
            #expect(outcome.decoded >= run.frames - 10, "\(run.name): more than 10 frames lost: \(Self.describe(outcome))")
            #expect(outcome.reasons.values.reduce(0, +) == outcome.plis, "\(run.name): reasons do not add up: \(outcome.received)")
            switch run.name {
            case let name where name.hasSuffix("has the SDP"):
                // sprop-parameter-sets made the first IDR decodable: nothing to ask for, nothing lost.
                #expect(outcome.plis == 0 && outcome.keyframes == 1, "\(run.name): \(Self.describe(outcome))")
                #expect(outcome.decoded >= run.frames - 1, "\(run.name): \(Self.describe(outcome))")
                // The -o file got them too: ffmpeg decodes it from its first frame.
                #expect(outcome.decodedFromFile ?? 0 >= run.frames - 1, "\(run.name): ffprobe decoded \(outcome.decodedFromFile ?? -1) frames of the -o file")
            case let name where name.hasPrefix("first packet lost with every"):
                // The NACK for the packets before the first one goes unanswered: a PLI after one retry interval.
                #expect(outcome.startNacked >= 1 && outcome.startRecovered == 0, "\(run.name): \(Self.describe(outcome))")
                #expect(outcome.reasons["no_parameter_sets"] ?? 0 >= 1, "\(run.name): \(Self.describe(outcome))")
                #expect(outcome.keyframes >= 2, "\(run.name): no IDR answered the PLI: \(Self.describe(outcome))")
            case let name where name.hasPrefix("first packet") || name.hasPrefix("first two"):
                // The IDR came without SPS/PPS: one NACK for the packets before it brings them back, the first IDR is
                // held until then and decodes; no PLI, no second IDR.
                #expect(outcome.startNacked >= 1 && outcome.startRecovered >= 1, "\(run.name): \(Self.describe(outcome))")
                #expect(outcome.plis == 0 && outcome.keyframes == 1, "\(run.name): \(Self.describe(outcome))")
                #expect(outcome.decoded >= run.frames - 1, "\(run.name): \(Self.describe(outcome))")
            case let name where name.hasPrefix("a fragment"):
                // One NACK brings it back in time: no picture lost, nothing to ask a keyframe for.
                #expect(outcome.nacks >= 1, "\(run.name): \(Self.describe(outcome))")
                #expect(outcome.decoded >= run.frames - 1, "\(run.name): \(Self.describe(outcome))")
            case let name where name.hasPrefix("IDR fragment"):
                // NACKs cannot help: the second one, unanswered, asks for an IDR too instead of waiting 300 ms for the
                // hole to be given up on.
                #expect((outcome.reasons["retransmission_missing"] ?? 0) >= 1 && outcome.nacks >= 2, "\(run.name): \(Self.describe(outcome))")
                #expect(outcome.keyframes >= 1, "\(run.name): \(Self.describe(outcome))")
            default:
                // No IDR at all (or one that could not be completed) until the PLI was answered.
                #expect(outcome.plis >= 1 && (outcome.reasons["no_keyframe"] ?? 0) + (outcome.reasons["access_unit_lost"] ?? 0) >= 1,
                        "\(run.name): \(Self.describe(outcome))")
                #expect(outcome.keyframes >= 1, "\(run.name): \(Self.describe(outcome))")
            }
        }
    }

    /// Neither --sdp nor --port: a usage error naming both.
    @Test func receiveNeedsAnSDPOrAPort() throws {
        let result = try CLIRunner.rtenc(["receive", "--timeout", "1"], timeout: 10)
        #expect(result.status == 64, "\(result.stderrText)")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("rtenc: ") == true, "\(result.stderrText)")
        #expect(result.stderrText.contains("--sdp") && result.stderrText.contains("--port"), "\(result.stderrText)")
    }

    /// The README's relay example (5 % loss, 5 % reordered, 30 ms) over 20 seeds, including the one where the first
    /// packet was lost and nothing decoded (6491497426552492992): every seed decodes ≥ 99 % of the frames, so no loss
    /// at the start cost more than 3 of them, and every IDR after the first answers a PLI. Where the first packet was
    /// lost (the first IDR came without SPS/PPS: the receiver NACKed the packets before it) and its retransmission
    /// came, no PLI was needed for the parameter sets.
    @Test func readmeRelayExampleDecodesOverManySeeds() throws {
        let seeds: [UInt64] = [6_491_497_426_552_492_992] + (1 ... 19).map { UInt64($0) * 7919 }
        let runs = seeds.map {
            Run(name: "seed \($0)", relay: ["--loss", "5", "--reorder", "5", "--delay", "30", "--seed", "\($0)"], frames: 300,
                joinKeyframes: true)
        }
        let outcomes = Self.executeAll(runs, parallel: 10)
        var firstPacketLost = 0
        for (run, result) in zip(runs, outcomes) {
            let outcome: Outcome
            do { outcome = try result.get() } catch {
                Issue.record("\(run.name): \(error)")
                continue
            }
            print("StartRecoveryTests: README relay, \(run.name): \(Self.describe(outcome))")
            if outcome.startNacked > 0 { firstPacketLost += 1 }
            if outcome.startRecovered > 0 {
                #expect(outcome.reasons["no_parameter_sets"] == nil, "\(run.name): \(Self.describe(outcome))")
            }
            #expect((outcome.relayed["dropped_loss"] as? Int ?? 0) >= 1, "\(run.name): \(outcome.relayed)")
            #expect(outcome.decoded * 100 >= run.frames * 99, "\(run.name): \(Self.describe(outcome))")
            #expect(outcome.nacks >= 1, "\(run.name): \(Self.describe(outcome))")
            // The GOP is 7200 frames: every further IDR was asked for, or is one of the join keyframes `stream` sends
            // every 0.5 s until the receiver's first report (1 s after its first packet, 30 ms back): at most 3.
            #expect(outcome.keyframes <= 1 + outcome.plis + 3, "\(run.name): \(Self.describe(outcome))")
            #expect(outcome.reasons.values.reduce(0, +) == outcome.plis, "\(run.name): \(outcome.received)")
        }
        print("StartRecoveryTests: README relay: \(firstPacketLost) of \(seeds.count) seeds lost the first packet")
        #expect(firstPacketLost >= 1, "seed 6491497426552492992 lost its first packet before; now none did")
    }
}
