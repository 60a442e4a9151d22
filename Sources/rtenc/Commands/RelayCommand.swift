#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import FoundationEssentials
import NetworkEmulator
import RTPOut

/// `rtenc relay`: a userspace network impairment relay between a sender and a receiver (this kernel has no netem):
/// loss, burst loss, delay, jitter, reordering and a rate limit (constant or a trace) on the way to the receiver,
/// the receiver's RTCP carried back to the sender with the same delay. Prints its counts as one JSON line at the end.
struct RelayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Relay an RTP stream through an emulated bad network (loss, delay, jitter, reordering, rate limits).",
        discussion: "Send RTP to --listen PORT (RTCP to PORT+1). The relay forwards it to --to HOST:PORT (RTCP to "
            + "PORT+1) from a port pair of its own, and sends the receiver's RTCP (RR, NACK, PLI) back to the sender's "
            + "RTCP address. Impairments apply to everything going to the receiver; the way back gets --delay, --jitter "
            + "and --return-loss.\n\nStops at Ctrl-C or after --duration and prints one JSON line: packets_in, packets_out, "
            + "dropped (loss, queue, frames), reordered, the RTCP carried back, and the seed (give it with --seed to "
            + "repeat a run).\n\nExample: rtenc relay --listen 6000 --to 127.0.0.1:5004 --loss 5 --delay 30 --jitter 5 "
            + "--rate 1500"
    )

    @Option(help: ArgumentHelp("Port the sender sends RTP to (RTCP on the next one unless --rtcp-mux).", valueName: "port"))
    var listen: UInt16

    @Option(help: "Local address to listen on.")
    var bind = "0.0.0.0"

    @Option(help: ArgumentHelp("Where to forward RTP (RTCP to PORT+1 unless --rtcp-mux).", valueName: "host:port"))
    var to: Endpoint

    @Flag(help: "RTP and RTCP on one port, on both sides (RFC 5761).")
    var rtcpMux = false

    @Option(help: ArgumentHelp("Packet loss, percent (0…100).", valueName: "percent"))
    var loss = 0.0

    @Option(help: ArgumentHelp("Loss of the receiver's RTCP on its way back to the sender, percent (0…100).", valueName: "percent"))
    var returnLoss = 0.0

    @Option(help: ArgumentHelp("Make the --loss bursty (Gilbert-Elliott): mean number of packets lost in a row (≥ 1).", valueName: "packets"))
    var burstLoss: Double?

    @Option(help: ArgumentHelp("One-way delay, milliseconds.", valueName: "ms"))
    var delay = 0.0

    @Option(help: ArgumentHelp("Delay varies uniformly within ± this many milliseconds (packets may overtake each other).", valueName: "ms"))
    var jitter = 0.0

    @Option(help: ArgumentHelp("Share of packets held back --reorder-delay so later ones overtake them, percent (0…100).", valueName: "percent"))
    var reorder = 0.0

    @Option(help: ArgumentHelp("Extra delay of a reordered packet, milliseconds.", valueName: "ms"))
    var reorderDelay = 10.0

    @Option(help: ArgumentHelp("Bottleneck rate, kb/s (packets queue, then drop, above it).", valueName: "kbps"))
    var rate: Double?

    @Option(help: ArgumentHelp("Bottleneck rate over time from a CSV file of `time_s,kbps` lines.", valueName: "file"))
    var rateTrace: String?

    @Option(help: ArgumentHelp("The bottleneck's queue, bytes.", valueName: "bytes"))
    var queueBytes = 256 * 1024

    @Option(help: ArgumentHelp("Debug: drop every packet (and retransmission) of these frames, counted 0, 1, 2… by RTP timestamp as they arrive.", valueName: "n,n,…"))
    var dropFrames: FrameList?

    @Option(help: ArgumentHelp("Random seed (default: random; the one used is in the report).", valueName: "n"))
    var seed: UInt64?

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    @Flag(help: "No start line on stderr, only the final JSON report.")
    var quiet = false

    func validate() throws {
        guard listen > 0, rtcpMux || listen < UInt16.max else { throw ValidationError("--listen must be 1…65534") }
        guard (0...100).contains(loss) else { throw ValidationError("--loss must be 0…100 percent") }
        guard (0...100).contains(returnLoss) else { throw ValidationError("--return-loss must be 0…100 percent") }
        if let burstLoss {
            guard burstLoss >= 1, burstLoss <= 1_000_000 else { throw ValidationError("--burst-loss must be 1…1000000 packets") }
            guard loss > 0, loss < 100 else { throw ValidationError("--burst-loss needs a --loss of more than 0 and less than 100") }
        }
        let maxMilliseconds = Double(ImpairmentProfile.maxDelay.components.seconds) * 1000
        for (name, value) in [("--delay", delay), ("--jitter", jitter), ("--reorder-delay", reorderDelay)] {
            guard value >= 0, value <= maxMilliseconds else { throw ValidationError("\(name) must be 0…\(Int(maxMilliseconds)) ms") }
        }
        guard (0...100).contains(reorder) else { throw ValidationError("--reorder must be 0…100 percent") }
        if let rate {
            guard rate > 0, rate <= RateTrace.maxKilobitsPerSecond else {
                throw ValidationError("--rate must be more than 0 and at most \(Int(RateTrace.maxKilobitsPerSecond)) kb/s")
            }
            guard rateTrace == nil else { throw ValidationError("give --rate or --rate-trace, not both") }
        }
        guard queueBytes > 0, queueBytes <= ImpairmentProfile.maxQueueBytes else {
            throw ValidationError("--queue-bytes must be 1…\(ImpairmentProfile.maxQueueBytes)")
        }
        if let duration { guard duration > 0, duration <= 1e7 else { throw ValidationError("--duration must be more than 0 seconds") } }
    }

    func run() throws {
        let stop = StopSignal()
        let profile = try impairmentProfile()
        let seed = seed ?? .random(in: 0 ... .max)
        let listenAddress: SocketAddress
        do {
            listenAddress = try SocketAddress(host: bind, port: listen)
        } catch {
            throw CLIError("relay: --bind \(bind): \(error)")
        }
        let destination = try HostResolver.resolve(to, command: "relay")
        let relay: UDPRelay
        do {
            relay = try UDPRelay(configuration: .init(listen: listenAddress, destination: destination, rtcpMux: rtcpMux,
                                                      profile: profile, seed: seed))
        } catch {
            throw CLIError.sockets("relay", error, portOption: "--listen")
        }
        if !quiet {
            Console.standardError.write(Data(("rtenc: relaying \(listenAddress) → \(destination) from port "
                + "\(relay.forwardingAddress.port) (seed \(seed))\n").utf8))
        }
        let started = MonotonicTime.now()
        relay.run { stop.isStopped || duration.map { MonotonicTime.now() - started >= $0 } ?? false }
        let report = RelayReport(relay.statistics, seed: seed)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        Console.standardOutput.write(try encoder.encode(report) + Data("\n".utf8))
    }

    private func impairmentProfile() throws -> ImpairmentProfile {
        let lossModel: ImpairmentProfile.Loss = switch (loss, burstLoss) {
        case (0, _): .none
        case (let rate, let burst?): .burst(rate: rate / 100, meanBurstLength: burst)
        case (let rate, nil): .random(rate: rate / 100)
        }
        var rateLimit = ImpairmentProfile.RateLimit.unlimited
        if let rate { rateLimit = .constant(bitsPerSecond: Int((rate * 1000).rounded())) }
        if let rateTrace {
            guard let text = try? String(contentsOfFile: rateTrace, encoding: .utf8) else {
                throw CLIError("relay: cannot read \(rateTrace)")
            }
            do {
                rateLimit = .trace(try RateTrace(csv: text))
            } catch {
                throw CLIError("relay: \(rateTrace): \(error)")
            }
        }
        let profile = ImpairmentProfile(
            loss: lossModel, delay: .milliseconds(delay), jitter: .milliseconds(jitter), reorderRate: reorder / 100,
            reorderDelay: .milliseconds(reorderDelay), rateLimit: rateLimit, queueBytes: queueBytes,
            dropFrames: dropFrames?.frames ?? [], returnLoss: returnLoss / 100)
        do {
            try profile.validate()
        } catch {
            throw CLIError("relay: \(error)")
        }
        return profile
    }
}

/// The JSON line `rtenc relay` prints at the end. Forward counts include the sender's RTCP; `rtcp_back_*` count the
/// receiver's RTCP carried to the sender.
struct RelayReport: Encodable {
    var packetsIn: Int
    var packetsOut: Int
    var bytesIn: Int
    var bytesOut: Int
    var dropped: Int
    var droppedLoss: Int
    var droppedQueue: Int
    var droppedFrames: Int
    var reordered: Int
    var rtcpBackIn: Int
    var rtcpBackOut: Int
    var rtcpBackLost: Int
    var sendFailures: Int
    var seed: UInt64

    init(_ statistics: UDPRelay.Statistics, seed: UInt64) {
        let forward = statistics.forward
        packetsIn = forward.packetsIn
        packetsOut = forward.packetsOut
        bytesIn = forward.bytesIn
        bytesOut = forward.bytesOut
        dropped = forward.dropped
        droppedLoss = forward.droppedByLoss
        droppedQueue = forward.droppedByQueue
        droppedFrames = forward.droppedFrames
        reordered = forward.reordered
        rtcpBackIn = statistics.back.packetsIn
        rtcpBackOut = statistics.back.packetsOut
        rtcpBackLost = statistics.back.droppedByLoss
        sendFailures = statistics.sendFailures
        self.seed = seed
    }

    enum CodingKeys: String, CodingKey {
        case dropped, reordered, seed
        case packetsIn = "packets_in"
        case packetsOut = "packets_out"
        case bytesIn = "bytes_in"
        case bytesOut = "bytes_out"
        case droppedLoss = "dropped_loss"
        case droppedQueue = "dropped_queue"
        case droppedFrames = "dropped_frames"
        case rtcpBackIn = "rtcp_back_in"
        case rtcpBackOut = "rtcp_back_out"
        case rtcpBackLost = "rtcp_back_lost"
        case sendFailures = "send_failures"
    }
}
