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
            + "dropped (loss, queue, frames, packets), reordered, the RTCP carried back, and the seed (give it with --seed to "
            + "repeat a run).\n\nExample: rtenc relay --listen 6000 --to 127.0.0.1:5004 --loss 5 --delay 30 --jitter 5 "
            + "--rate 1500"
    )

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Port the sender sends RTP to (RTCP on the next one unless --rtcp-mux).", valueName: "port"),
            transform: OptionNumber.integer(1...UInt16.max))
    var listen: UInt16

    @Option(help: ArgumentHelp("Local address to listen on (numeric IPv4 or IPv6, or localhost).", default: "0.0.0.0",
                               valueName: "address"),
            transform: NumericAddress.parse)
    var bind = "0.0.0.0"

    @Option(help: ArgumentHelp("Where to forward RTP (RTCP to PORT+1 unless --rtcp-mux); IPv6 as [::1]:5004.", valueName: "host:port"),
            transform: Endpoint.parse)
    var to: Endpoint

    @Flag(help: "RTP and RTCP on one port, on both sides (RFC 5761).")
    var rtcpMux = false

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Packet loss, percent (0…100).", default: 0, valueName: "percent"),
            transform: OptionNumber.decimal(0...100, unit: "percent"))
    var loss = 0.0

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Loss of the receiver's RTCP on its way back to the sender, percent (0…100).", default: 0,
                               valueName: "percent"),
            transform: OptionNumber.decimal(0...100, unit: "percent"))
    var returnLoss = 0.0

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Make the --loss bursty (Gilbert-Elliott): mean number of packets lost in a row (≥ 1).", valueName: "packets"),
            transform: OptionNumber.decimal(1...1_000_000, unit: "packets"))
    var burstLoss: Double?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("One-way delay, milliseconds.", default: 0, valueName: "ms"), transform: Self.milliseconds)
    var delay = 0.0

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Delay varies uniformly within ± this many milliseconds (packets may overtake each other).",
                               default: 0, valueName: "ms"),
            transform: Self.milliseconds)
    var jitter = 0.0

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Share of packets held back --reorder-delay so later ones overtake them, percent (0…100).",
                               default: 0, valueName: "percent"),
            transform: OptionNumber.decimal(0...100, unit: "percent"))
    var reorder = 0.0

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Extra delay of a reordered packet, milliseconds.", default: 10, valueName: "ms"),
            transform: Self.milliseconds)
    var reorderDelay = 10.0

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Bottleneck rate, kb/s (packets queue, then drop, above it).", valueName: "kbps"),
            transform: OptionNumber.decimal(expected: "more than 0 and at most \(Int(RateTrace.maxKilobitsPerSecond)) kb/s") {
                $0 > 0 && $0 <= RateTrace.maxKilobitsPerSecond
            })
    var rate: Double?

    @Option(help: ArgumentHelp("Bottleneck rate over time from a CSV file of `time_s,kbps` lines.", valueName: "file"))
    var rateTrace: String?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("The bottleneck's queue, bytes.", default: 256 * 1024, valueName: "bytes"),
            transform: OptionNumber.integer(1...ImpairmentProfile.maxQueueBytes, unit: "bytes"))
    var queueBytes = 256 * 1024

    @Option(parsing: .unconditional,
            help: ArgumentHelp("The bottleneck's queue limit in time (RFC 8868: queue measured as time to drain): a packet whose last byte would leave more than this after it arrived (the ones ahead of it, then itself) is dropped, as in bench cc's simulation. Both limits apply.", valueName: "ms"),
            transform: OptionNumber.decimal(expected: "more than 0 and at most 10000 ms") { $0 > 0 && $0 <= 10_000 })
    var queueMs: Double?

    @Option(help: ArgumentHelp(
        "Write one CSV line per packet to this file: arrival, direction (forward/back), bytes, RTP sequence number, fate (forwarded or why dropped), queuing delay at the bottleneck, delivery time (ms on the relay's clock).",
        valueName: "file"))
    var packetLog: String?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Debug: drop every packet (and retransmission) of these frames, counted 0, 1, 2… by RTP timestamp as they arrive.", valueName: "n,n,…"),
            transform: FrameList.parse)
    var dropFrames: FrameList?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Debug: drop these RTP packets, counted 0, 1, 2… as they arrive (a retransmission is a new arrival, so it passes); ranges allowed, e.g. 0 (the first packet), 0-9, 3,5,20-29.", valueName: "n,n-m,…"),
            transform: PacketNumberList.parse)
    var dropPackets: PacketNumberList?

    @Flag(help: "Debug: with --drop-packets, also drop every later packet with the sequence number of one it dropped (its NACK retransmissions), so the hole is never filled.")
    var dropRetransmissions = false

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Random seed (default: random; the one used is in the report).", valueName: "n"),
            transform: OptionNumber.integer(0...UInt64.max))
    var seed: UInt64?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"),
            transform: OptionNumber.decimal(expected: "more than 0 seconds") { $0 > 0 && $0 <= 1e7 })
    var duration: Double?

    @Flag(help: "No start line on stderr, only the final JSON report.")
    var quiet = false

    /// `--delay`, `--jitter`, `--reorder-delay`: up to the emulator's longest delay.
    static let milliseconds = OptionNumber.decimal(
        0...Double(ImpairmentProfile.maxDelay.components.seconds) * 1000, unit: "ms")

    func validate() throws {
        guard rtcpMux || listen < UInt16.max else {
            throw ValidationError("--listen 65535 leaves no port for RTCP; use 1…65534, or --rtcp-mux")
        }
        if burstLoss != nil, !(loss > 0 && loss < 100) {
            throw ValidationError("--burst-loss needs a --loss of more than 0 and less than 100")
        }
        if rate != nil, rateTrace != nil { throw ValidationError("give --rate or --rate-trace, not both") }
        if dropRetransmissions, dropPackets == nil { throw ValidationError("--drop-retransmissions needs --drop-packets") }
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
        var log: LinesFileWriter?
        var logError: (any Error)?
        if let packetLog {
            do {
                log = try LinesFileWriter(path: packetLog)
                try log?.write(line: PacketRecord.csvHeader)
            } catch {
                throw CLIError("relay: --packet-log: \(error)")
            }
            relay.recordsPackets = true
        }
        let started = MonotonicTime.now()
        relay.run(until: { stop.isStopped || duration.map { MonotonicTime.now() - started >= $0 } ?? false },
                  onRecords: { forward, back in
                      guard logError == nil, let log else { return }
                      do {
                          for record in forward { try log.write(line: record.csvLine(direction: "forward")) }
                          for record in back { try log.write(line: record.csvLine(direction: "back")) }
                      } catch {
                          logError = error  // a full disk stops the log, not the relay; reported at the end
                      }
                  })
        if let log {
            if let logError { throw CLIError("relay: --packet-log: \(logError)") }
            do { try log.close() } catch { throw CLIError("relay: --packet-log: \(error)") }
        }
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
            let text: String
            do { text = try String(contentsOfFile: rateTrace, encoding: .utf8) } catch {
                throw CLIError("relay: cannot read \(rateTrace): \(fileErrorText(error))")
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
            queueDelayLimit: queueMs.map { .microseconds(Int64(($0 * 1000).rounded())) }, dropFrames: dropFrames?.frames ?? [], dropPackets: dropPackets?.numbers ?? PacketNumbers(),
            dropRetransmissions: dropRetransmissions, returnLoss: returnLoss / 100)
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
    var droppedPackets: Int
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
        droppedPackets = forward.droppedPackets
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
        case droppedPackets = "dropped_packets"
        case rtcpBackIn = "rtcp_back_in"
        case rtcpBackOut = "rtcp_back_out"
        case rtcpBackLost = "rtcp_back_lost"
        case sendFailures = "send_failures"
    }
}

/// `--drop-packets 0-4,7`: the relay's packet filter (`PacketNumbers`) as a command-line value.
struct PacketNumberList: Sendable {
    var numbers: PacketNumbers

    static func parse(_ argument: String) throws(OptionValueError) -> PacketNumberList {
        guard let numbers = PacketNumbers(parsing: argument) else {
            throw OptionValueError("'\(argument)' is not a list of packet numbers",
                                   expected: "expected numbers and ranges from 0, comma separated, like 0 or 0-9 or 3,5,20-29")
        }
        return PacketNumberList(numbers: numbers)
    }
}
