#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Bitstream
import CongestionControl
import EncoderSession
import FoundationEssentials
import MediaIO
import RTPOut
import WebRTC
import WebRTCHTTP
import WebRTCTransport

/// `rtenc serve [INPUT] --whep HOST:PORT`: one encoder, served to WebRTC players over WHEP (ICE-lite, DTLS-SRTP).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Encode frames in real time and serve them to browsers and other WebRTC players over WHEP.",
        discussion: """
            Open http://HOST:PORT/ in a browser (the built-in player page, with its getStats), or POST an SDP offer \
            to http://HOST:PORT/whep from any WHEP player. rtenc answers as an ICE-lite, DTLS-client sender; media \
            for every viewer leaves one UDP socket (--webrtc-udp, by default the WHEP host with a free port). Each \
            new viewer gets an IDR with SPS/PPS (VPS/SPS/PPS for --codec hevc); PLI/FIR bring IDRs; REMB lowers the \
            encoder's target (the lowest congested viewer's, never below 150 kb/s). --codec hevc serves H.265 \
            (RFC 7798) to players that offer it: Safari, and Chrome with a hardware HEVC decoder; a player that offers \
            none gets 406. Stops at Ctrl-C or after --duration seconds.
            """
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var encoder: EncoderOptions

    @Option(help: ArgumentHelp("Where the WHEP HTTP server listens.", valueName: "host:port"),
            transform: { argument in try Endpoint.parse(argument) })
    var whep: Endpoint

    @Option(help: ArgumentHelp("The UDP address media is served from (default: the --whep host, a free port).", valueName: "host:port"),
            transform: { argument in try Endpoint.parse(argument) })
    var webrtcUdp: Endpoint?

    @Option(help: ArgumentHelp("A host candidate the answers offer players (repeatable; default: the UDP address). Loopback is kept.",
                               valueName: "ip[:port]"),
            transform: { argument in try CandidateArgument.parse(argument) })
    var webrtcCandidate: [CandidateArgument] = []

    @Option(help: "Require 'Authorization: Bearer TOKEN' on WHEP requests.")
    var whepToken: String?

    @Option(help: "Refuse more viewers than this at once (503 with Retry-After; default 16).",
            transform: OptionNumber.integer(1...10_000, unit: "viewers"))
    var maxViewers = 16

    @Option(help: "Refuse more viewers still connecting (ICE or DTLS not done) than this at once (503 with Retry-After; default 8).",
            transform: OptionNumber.integer(1...10_000, unit: "viewers"))
    var maxPendingViewers = 8

    @Option(help: ArgumentHelp(
        "Rate controller for viewers that offer transport-cc: \(CongestionControllers.liveNames) (default gcc).",
        discussion: "gcc: each such viewer (every browser) gets its own Google congestion control over transport-cc "
            + "feedback, pacing it, and the encoder follows the lowest viewer's target. rtenc: rtenc's own controller "
            + "per viewer, fed its sent packets and transport-cc reports; it also gives each frame a byte budget and "
            + "skips frames while the viewer's queue is over its delay target (the encoder takes the lowest budget among "
            + "the viewers; --stats-json counts them under frames). Players without transport-cc (aiortc) get REMB "
            + "either way. remb: every viewer's REMB caps the encoder, as before congestion control.",
        valueName: "name"), transform: CongestionOptions.controller)
    var cc: CongestionControllers.Entry = CongestionControllers.named("gcc")!

    @Option(parsing: .unconditional, help: "Stop after this many seconds of video.",
            transform: OptionNumber.decimal(expected: "more than 0 seconds") { $0 > 0 })
    var duration: Double?

    @Option(help: "Write one JSON object per second (time, viewers, target_kbps, keyframes, frames: the per-frame decisions — skipped_controller, skipped_queue, queue_flushes, budgeted, budget_overruns, longest_skip_ms, queue_ms —, and per viewer: state, kbps, remb_kbps, nacks, plis, keyframes, cc, cc_target_kbps, cc_budget_bytes, queue_ms, retransmitted, rtx_ssrc, probe_clusters, padding_packets, probes_not_sent).")
    var statsJson: String?

    @Flag(help: "Let players smooth out jitter as they would (no playout-delay 0/0 for players that offer the extension): steadier frame timing over a jittery path, ~20 ms more latency into Chromium.")
    var smoothPlayout = false

    @Flag(help: "Print nothing but errors and the line that says where to open the player.")
    var quiet = false

    func validate() throws {
        if let token = whepToken, token.isEmpty || token.contains(where: { $0.isWhitespace }) {
            throw ValidationError("--whep-token must be non-empty and without spaces")
        }
    }

    func run() throws {
        let logger = Diagnostics.logger(quiet: quiet)
        let stop = StopSignal()
        // The first frame is encoded before anything is served: its SPS says what the answers must negotiate.
        var loop = try WebRTCEncodeLoop(command: "serve", input: input, encoder: encoder)
        defer { loop.session.invalidate() }

        let udp = webrtcUdp ?? Endpoint(host: whep.host, port: 0)
        let server: WebRTCServer
        do {
            let bind = try udp.port == 0 ? SocketAddress(host: HostResolver.resolve(Endpoint(host: udp.host, port: 1), command: "serve").host, port: 0)
                : HostResolver.resolve(udp, command: "serve")
            let candidates = try webrtcCandidate.map { try SocketAddress(host: $0.host, port: $0.port) }
            var configuration = WebRTCServerConfiguration(media: WebRTCMediaConfiguration(
                bind: bind, candidates: candidates, encoding: loop.encoding, sequenceParameterSet: loop.sequenceParameterSet,
                pictureParameterSet: loop.pictureParameterSet, videoParameterSet: loop.videoParameterSet,
                bitrateCeiling: UInt64(encoder.bitrate.bitsPerSecond), congestionController: cc.usesTransportFeedback ? cc : nil),
                maxViewers: maxViewers)
            configuration.maxPendingViewers = maxPendingViewers
            configuration.immediatePlayout = !smoothPlayout
            server = try WebRTCServer(configuration: configuration)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("serve: \(error)")
        }
        defer { server.stop() }
        let http = WHEPHTTPServer(
            configuration: .init(host: whep.host, port: Int(whep.port), bearerToken: whepToken),
            endpoint: WebRTCServerEndpoint(server))
        let port: Int
        do {
            port = try http.start()
        } catch {
            throw CLIError("serve: \(error)")
        }
        defer { http.stop() }
        let base = "http://\(Endpoint(host: whep.host, port: UInt16(port)))"
        Console.standardOutput.write(Data(("rtenc: serving \(input.input) \(loop.width)x\(loop.height) at \(Int(loop.frameRate.rounded())) fps, "
            + "\(encoder.bitrate.kilobitsPerSecond) kb/s: open \(base)/ (WHEP endpoint \(base)/whep; media on UDP "
            + "\(server.configuration.candidates.map(\.description).joined(separator: ", ")))\n").utf8))
        logger.info("encoder: \(loop.session.encoderInUse)")

        let statsFile = try statsJson.map { try LinesFileWriter(path: $0) }
        let (frames, keyframes) = try loop.run(to: server, duration: duration, stop: stop, statsFile: statsFile, logger: logger) { elapsed, state in
            ServeStatisticsLine(time: elapsed, encoder: state, viewers: server.statistics())
        }
        try statsFile?.close()
        logger.info("served \(frames) frames (\(keyframes) keyframes); \(server.viewerCount) viewers at the end")
    }
}

/// `--webrtc-candidate IP[:PORT]`: port 0 (absent) means the UDP socket's.
struct CandidateArgument: Sendable, Hashable {
    var host: String
    var port: UInt16

    static func parse(_ argument: String) throws(OptionValueError) -> CandidateArgument {
        if let endpoint = try? Endpoint.parse(argument) { return CandidateArgument(host: endpoint.host, port: endpoint.port) }
        return CandidateArgument(host: try NumericAddress.parse(argument), port: 0)
    }
}


/// One `--stats-json` line of `serve`.
struct ServeStatisticsLine: Encodable {
    struct Viewer: Encodable {
        var id: String
        var state: String
        var kbps: Double
        var rembKbps: Double?
        var nacks: Int
        var plis: Int
        var keyframes: Int
        var packets: Int
        var firstKeyframeMs: Double?
        /// Its own rate controller (transport-cc) and that controller's target; absent for a REMB viewer.
        var cc: String?
        var ccTargetKbps: Double?
        /// Its controller's byte budget for the next frame (rtenc's; 0: skip it); absent without one.
        var ccBudgetBytes: Int?
        /// How long its pacer queue takes to drain.
        var queueMs: Double?
        /// Its RTX stream (RFC 4588) when negotiated: NACKed packets re-sent on it, probe clusters sent whole on it
        /// as padding and their packets; probe clusters its controller asked for that could not be sent (no RTX).
        var rtxSSRC: UInt32?
        var retransmitted: Int
        var probeClusters: Int
        var paddingPackets: Int
        var probesNotSent: Int
        /// From a frame queued for it to its first and to its last packet handed to the socket (the pacer's share).
        var sendMs: [String: DelaySummary]?

        enum CodingKeys: String, CodingKey {
            case id, state, kbps, nacks, plis, keyframes, packets, cc, retransmitted
            case rtxSSRC = "rtx_ssrc"
            case probeClusters = "probe_clusters"
            case paddingPackets = "padding_packets"
            case probesNotSent = "probes_not_sent"
            case rembKbps = "remb_kbps"
            case firstKeyframeMs = "first_keyframe_ms"
            case ccTargetKbps = "cc_target_kbps"
            case ccBudgetBytes = "cc_budget_bytes"
            case queueMs = "queue_ms"
            case sendMs = "send_ms"
        }
    }

    var time: Double
    var targetKbps: Double
    var keyframes: Int
    /// The per-frame decisions (`FrameDecider`), in the shape `stream`'s lines carry too: pictures not encoded (a
    /// viewer's pacer queue over the pushback bound, or a viewer's controller leaving no bytes for them), budgets, and
    /// the longest expected pacer queue time among the viewers at the last frame. (The older top-level
    /// `frames_skipped` and `queue_ms` keys, the same figures, are gone: one shape for every command.)
    var frames: FrameDecisionCounts
    /// Where the encode loop's time went per frame (`WebRTCEncodeLoop.StageDelays`): source, encode, hand_over.
    var stagesMs: [String: DelaySummary]
    var viewers: [Viewer]

    enum CodingKeys: String, CodingKey {
        case time, keyframes, viewers, frames
        case targetKbps = "target_kbps"
        case stagesMs = "stages_ms"
    }

    /// A `RecentDurations.Summary` in ms (0.01 ms steps): `{"frames", "p50", "p90", "max"}` over the last 64 frames.
    struct DelaySummary: Encodable, Equatable {
        var frames: Int
        var p50: Double
        var p90: Double
        var max: Double

        init(_ summary: RecentDurations.Summary) {
            func ms(_ duration: Duration) -> Double { (Double(duration.nanoseconds) / 1e4).rounded() / 100 }
            frames = summary.count
            p50 = ms(summary.median)
            p90 = ms(summary.p90)
            max = ms(summary.max)
        }

        /// The summaries that exist, by name.
        static func named(_ summaries: KeyValuePairs<String, RecentDurations.Summary?>) -> [String: DelaySummary] {
            var named: [String: DelaySummary] = [:]
            for (name, summary) in summaries { if let summary { named[name] = DelaySummary(summary) } }
            return named
        }
    }

    init(time: Double, encoder: WebRTCEncodeLoop.EncoderState, viewers: [WebRTCViewerStatistics]) {
        self.time = (time * 1000).rounded() / 1000
        targetKbps = Double(encoder.target) / 1000
        keyframes = encoder.keyframes
        frames = FrameDecisionCounts(encoder.frames, queueTime: encoder.queueTime)
        stagesMs = DelaySummary.named(["source": encoder.stages.source.summary, "encode": encoder.stages.encode.summary,
                                       "hand_over": encoder.stages.handOver.summary])
        self.viewers = viewers.map { v in
            Viewer(id: v.id, state: v.state, kbps: (v.bitrate / 100).rounded() / 10, rembKbps: v.peerLimit.map { Double($0) / 1000 },
                   nacks: v.nackedPackets, plis: v.keyframeRequests, keyframes: v.keyframesSent, packets: v.packetsSent,
                   firstKeyframeMs: v.firstKeyframeAfter.map { Double($0.nanoseconds) / 1e6 }, cc: v.congestionController,
                   ccTargetKbps: v.controllerTarget.map { Double($0) / 1000 }, ccBudgetBytes: v.controllerFrameBudget,
                   queueMs: v.queueTime.map { (Double($0.nanoseconds) / 1e5).rounded() / 10 }, rtxSSRC: v.rtxSSRC,
                   retransmitted: v.retransmissionsSent, probeClusters: v.probeClustersSent, paddingPackets: v.paddingPacketsSent,
                   probesNotSent: v.probesNotSent,
                   sendMs: DelaySummary.named(["first_packet": v.firstPacketDelay, "last_packet": v.lastPacketDelay]))
        }
    }
}
