#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Bitstream
import Composition
import CongestionControl
import EncoderSession
import FoundationEssentials
import Logging
import MediaIO
import RTPOut
import StreamControl

/// `rtenc stream [INPUT]`: the main job. Frames in real time → CompressionSession → RTP to a peer, honouring its RTCP.
struct StreamCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract: "Encode frames in real time and send them as H.264 (RFC 6184) or HEVC (RFC 7798) RTP, writing an SDP for the receiver.",
        discussion: """
            With no arguments: a moving 1280x720 30 fps test pattern at 2 Mb/s (cap 1.5x per second, keyframes \
            every 7200 frames / 240 s) to 127.0.0.1:5004, described in stream.sdp. Watch it, started at any time, \
            with

              ffplay -protocol_whitelist file,udp,rtp stream.sdp

            While no receiver reports (RTCP), an IDR goes out every 0.5 s (--join-keyframes), so a player that \
            joins late shows the picture within about a second; once a receiver reports, only the GOP and PLI/FIR \
            bring IDRs. The peer's RTCP is honoured: PLI/FIR force an IDR, NACK retransmits, REMB/TMMBR lower the \
            bit rate. Stops at Ctrl-C (sending RTCP BYE), after --duration seconds or after --frames frames.

            With --whip URL the stream is published to a WebRTC server instead (WHIP, RFC 9725): rtenc POSTs its \
            offer, runs ICE and DTLS-SRTP with the server, and DELETEs the session when it stops. The plain RTP \
            options (--to, --sdp, --srtp…) do not apply then.
            """
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var encoder: EncoderOptions
    @OptionGroup var network: NetworkOptions
    @OptionGroup(title: "Congestion control") var congestion: CongestionOptions

    @Option(parsing: .unconditional,
            help: ArgumentHelp(
                "Seconds between IDRs while no receiver reports (0.1…3600), or off.",
                default: JoinKeyframesArgument.defaultValue, valueName: "seconds|off",
                discussion: "For players that never ask for a keyframe (ffplay, VLC): one that starts after the stream decodes from the next IDR. Once RTCP from the peer arrives, only the GOP and PLI/FIR bring IDRs; after \(Int(JoinKeyframes.receiverTimeout)) s without RTCP the periodic IDRs resume."),
            transform: JoinKeyframesArgument.parse)
    var joinKeyframes = JoinKeyframesArgument.defaultValue

    @Option(parsing: .unconditional,
            help: "Stop after this many seconds of video.",
            transform: OptionNumber.decimal(expected: "more than 0 seconds") { $0 > 0 })
    var duration: Double?

    @Option(help: "Write one JSON object per second (time, fps, target_kbps, actual_kbps, keyframes, packets, nacks, plis, rtt_ms, loss, dropped; the rate controller's cc, estimate_kbps, pacing_kbps, probe_clusters, padding_packets, feedback_reports; frames: the per-frame decisions — skipped_controller, skipped_queue, queue_flushes, budgeted, budget_overruns, longest_skip_ms, queue_ms).")
    var statsJson: String?

    @Flag(help: "Print nothing but errors and the play command.")
    var quiet = false

    @Option(help: ArgumentHelp("Publish to this WHIP endpoint (http:// or https://) instead of sending plain RTP.", valueName: "url"))
    var whip: String?

    @Option(help: "Send 'Authorization: Bearer TOKEN' to the WHIP endpoint (needs --whip).")
    var whipToken: String?

    @Option(help: ArgumentHelp(
        "Trust the CA certificates in this PEM file for an https WHIP endpoint, in addition to the system store (needs --whip).",
        valueName: "path"))
    var whipCaFile: String?

    @Flag(help: "Let the WHIP server's players smooth out jitter as they would (no playout-delay 0/0 offered): steadier frame timing over a jittery path, ~20 ms more latency into Chromium (needs --whip).")
    var smoothPlayout = false

    func validate() throws {
        if whip == nil, whipToken != nil { throw ValidationError("--whip-token needs --whip URL") }
        if whip == nil, whipCaFile != nil { throw ValidationError("--whip-ca-file needs --whip URL") }
        if whip == nil, smoothPlayout { throw ValidationError("--smooth-playout needs --whip URL (plain RTP carries no playout-delay)") }
        if let token = whipToken, token.isEmpty || token.contains(where: { $0.isWhitespace }) {
            throw ValidationError("--whip-token must be non-empty and without spaces")
        }
        if whip != nil {
            let plain = network.plainRTPOptionsGiven
            guard plain.isEmpty else {
                throw ValidationError("--whip publishes over WebRTC; \(plain.joined(separator: ", ")) \(plain.count == 1 ? "is" : "are") for plain RTP: give one or the other")
            }
        }
        try congestion.validate(noPacing: network.noPacing)
    }

    func run() throws {
        if let whip { return try publishOverWHIP(to: whip) }
        let logger = Diagnostics.logger(quiet: quiet)
        let stop = StopSignal()
        var source = try input.open(command: "stream", live: true)
        // A timeline file plays each version saved while it streams; an invalid one is refused, the old one plays on.
        let watcher = (source as? CompositionSource).map { composition in
            TimelineWatcher(path: input.input, forceLoop: input.loop, editor: composition.makeEditor(), logger: logger)
        }
        defer { watcher?.stop() }
        let frameRate = source.frameRate.doubleValue > 0 ? source.frameRate.doubleValue : 30
        let collector = OutputCollector()
        let session: CompressionSession
        do {
            session = try CompressionSession(
                configuration: encoder.configuration(
                    width: source.width, height: source.height, frameRate: frameRate, pixelFormat: source.format),
                outputHandler: collector.handler)
        } catch {
            throw CLIError("stream: cannot open the encoder: \(error)")
        }
        defer { session.invalidate() }

        // The one owner of the rate: the peer's feedback in, encoder target and pacing rate out together.
        let rate = try congestion.rateController(ceiling: encoder.bitrate.bitsPerSecond, command: "stream")
        let sender: RTPSender
        do {
            var configuration = try network.senderConfiguration(
                bitsPerSecond: encoder.bitrate.bitsPerSecond, codec: encoder.codec.codec, command: "stream")
            congestion.configure(&configuration)
            sender = try RTPSender(
                configuration: configuration,
                onKeyframeRequest: rate.keyframeRequestHandler,
                onBitrateLimit: rate.bitrateLimitHandler,
                onWarning: { logger.warning("\($0)") },
                onTransportFeedback: network.transportCC || network.ccfb || congestion.estimates ? rate.transportFeedbackHandler : nil,
                onPacketsSent: congestion.estimates ? rate.packetsSentHandler : nil)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.sockets("stream: cannot open the RTP sockets", error, portOption: "--local-port (0: any free one)")
        }
        // A controller starts below the ceiling the encoder was opened at (goog_cc: 300 kb/s): its first allocation.
        let start = rate.allocation
        if start.encoderBitRate != encoder.bitrate.bitsPerSecond {
            do { try session.setAverageBitRate(start.encoderBitRate) } catch { throw CLIError("stream: --cc \(congestion.cc.name): \(error)") }
            sender.setTargetBitrate(start.pacingBitRate)
        }
        var loop = StreamLoop(
            session: session, sender: sender, rate: rate, collector: collector, encoder: encoder, stop: stop,
            joinKeyframes: JoinKeyframes(interval: joinKeyframes.interval), encoderRate: start.encoderBitRate)

        // The first frame is encoded before anything is sent, so the SDP can carry its SPS/PPS (HEVC: VPS/SPS/PPS).
        var buffer = source.makeBuffer()
        guard let firstTime = try loop.nextFrame(from: &source, into: &buffer, input: input.input) else {
            throw CLIError("stream: input \(input.input) has no frames")
        }
        try loop.encode(buffer, at: firstTime)
        let first = collector.drain()
        guard let parameterSets = first.lazy.compactMap({ $0.frame?.parameterSets }).first,
              let sps = parameterSets.sequenceParameterSets.first, let pps = parameterSets.pictureParameterSets.first,
              let vps = encoder.codec.codec == .hevc ? parameterSets.videoParameterSets.first : []
        else {
            throw CLIError("stream: the encoder gave no \(encoder.codec.codec == .hevc ? "VPS/SPS/PPS" : "SPS/PPS") for the first frame")
        }
        try network.writeSDP(sender.sessionDescription(videoParameterSet: vps, sequenceParameterSet: sps, pictureParameterSet: pps),
                             command: "stream")
        // Unbuffered: a script waiting for the play command sees it before the first packet leaves.
        Console.standardOutput.write(Data(("rtenc: streaming \(input.input) \(source.width)x\(source.height) at \(Int(frameRate.rounded())) fps, "
            + "\(encoder.bitrate.kilobitsPerSecond) kb/s to \(network.to) (RTP from \(sender.localRTPAddress.port), "
            + "RTCP on \(sender.localRTCPAddress.port)); SDP in \(network.sdp)\n"
            + playHint() + "\n").utf8))
        logger.info("encoder: \(session.encoderInUse)")
        if let watcher {
            watcher.start()
            logger.info("edits saved to \(input.input) play from the next frame (an invalid version is refused, the last good one plays on)")
        }

        let startDelay = MonotonicTime.now() + network.startDelay
        stop.sleep(until: startDelay)
        // A keyframe request that came during the delay is answered by the IDR about to leave.
        rate.handle(.keyframeSent)
        let clockStart = MonotonicTime.now()
        // Behind by more than half a second, or two frames (an encoder slower than real time, a stalled input):
        // frames are skipped until caught up rather than let latency grow without bound; a live source has newer
        // frames anyway. Shorter hiccups (a busy machine) are absorbed by sending the next frames as soon as ready.
        var pacer = RealTimeFramePacer(maxLateness: .milliseconds(Int64(max(0.5, 2 / frameRate) * 1000)))
        pacer.restart(presentationTime: firstTime)
        var statistics = StreamStatistics(start: clockStart)
        let statsFile = try statsJson.map { try LinesFileWriter(path: $0) }
        var status = StatusLine()
        func report(force: Bool) throws {
            guard var line = statistics.line(
                now: MonotonicTime.now(), targetBitRate: rate.allocation.encoderBitRate, sender: sender.statistics,
                encoder: session.encoderInUse.name, joinKeyframes: loop.joinKeyframes.mode == .joining, force: force)
            else { return }
            line.addController(congestion.cc.name, rate: rate, sender: sender.statistics)
            line.addFrames(loop.decider.statistics, queueTime: loop.lastQueueTime)
            try statsFile?.write(line)
            if !quiet { status.show(line.statusText) }
        }

        try loop.send(first, statistics: &statistics)
        var index = 1
        while !stop.isStopped {
            if let frames = input.frames, index >= frames { break }
            guard let time = try loop.nextFrame(from: &source, into: &buffer, input: input.input) else { break }
            if let duration, time.seconds - firstTime.seconds >= duration { break }
            guard pacer.waitForTurn(of: time, shouldStop: { stop.isStopped }) else {
                if stop.isStopped { break }
                statistics.skipLate()
                if statistics.late == 1 { logger.warning("falling behind real time: skipping late frames") }
                index += 1
                continue
            }
            // One decision for the frame: the controller's budget (rtenc's: 0 skips the picture, and the next one is
            // coded against the last frame sent) and the pushback on the pacer's queue, a keyframe asked for going
            // with the next frame that is encoded.
            let decision = try loop.decide(index: index, logger: logger)
            guard decision.encodes else {
                try report(force: false)
                index += 1
                continue
            }
            try loop.encode(buffer, at: time, index: index, decision: decision)
            try loop.send(collector.drain(), statistics: &statistics)
            try report(force: false)
            index += 1
        }
        do {
            try session.completeFrames()
        } catch {
            throw CLIError("stream: flushing the encoder: \(error)")
        }
        try loop.send(collector.drain(), statistics: &statistics)
        sender.close(drainTimeout: .seconds(2) + .seconds(network.byeDelay))  // the BYE linger must fit the drain
        try report(force: true)
        status.finish()
        try statsFile?.close()
        let final = sender.statistics
        let sent = statistics.framesEncoded - statistics.dropped
        // Frames a timeline could not compose in time (a clip still opening): the previous picture was sent again.
        let repeated = (source as? CompositionSource).map { ", \($0.statistics.lateFrames) repeated while a clip opened" } ?? ""
        logger.info("""
            sent \(sent) frames (\(statistics.keyframes) keyframes, \(statistics.dropped) dropped by the encoder, \
            \(statistics.late) skipped late\(repeated)\(loop.skipSummary(controller: congestion.cc.name))) in \
            \(final.packetsSent) packets; \(final.keyframeRequestsReceived) keyframe requests, \
            \(final.packetsRetransmitted) retransmissions\(network.feedbackSummary(final, controller: rate)); BYE sent
            """)
    }

    /// The line that tells people how to watch, true to what a player started now will see.
    func playHint() -> String {
        let command = "ffplay -protocol_whitelist \(network.playerProtocols) \(network.sdp)"
        guard let interval = joinKeyframes.interval else {
            return "play it with: \(command) started before the stream (--start-delay gives it time), or use a "
                + "receiver that sends PLI: a player that joins late waits for the next IDR (every \(keyframeSpacing()))"
        }
        // The wait for the next IDR, plus about half a second for the player to start and probe the stream.
        let within = String(cFormat: "%g", ((interval + 0.5) * 10).rounded() / 10)
        return "play it with: \(command) (start it now or later: an IDR every \(joinKeyframes) s until a receiver "
            + "reports, so it shows the picture within about \(within) s)"
    }

    /// "7200 frames / 240 s": the configured keyframe limits, for the hint.
    private func keyframeSpacing() -> String {
        let limits = (encoder.keyint > 0 ? ["\(encoder.keyint) frames"] : [])
            + (encoder.keyintSeconds > 0 ? [String(cFormat: "%g s", encoder.keyintSeconds)] : [])
        return limits.isEmpty ? "forever (no --keyint)" : limits.joined(separator: " / ")
    }
}

/// The per-frame work of `stream`, kept apart from set-up and reporting.
struct StreamLoop {
    let session: CompressionSession
    let sender: RTPSender
    let rate: LiveBitrateController
    let collector: OutputCollector
    let encoder: EncoderOptions
    let stop: StopSignal
    private(set) var joinKeyframes: JoinKeyframes
    /// The one per-frame decision (`FrameDecider`): the controller's skip and budget, the pacer queue's pushback.
    private(set) var decider = FrameDecider()
    /// The sender's expected queue time at the last decision (for `--stats-json`).
    private(set) var lastQueueTime: Duration?
    /// The average bit rate the encoder was last given: the controller's target with the pushback applied.
    private var encoderRate: Int
    private let clock = MonotonicMediaClock()

    init(session: CompressionSession, sender: RTPSender, rate: LiveBitrateController, collector: OutputCollector,
         encoder: EncoderOptions, stop: StopSignal, joinKeyframes: JoinKeyframes, encoderRate: Int) {
        self.session = session
        self.sender = sender
        self.rate = rate
        self.collector = collector
        self.encoder = encoder
        self.stop = stop
        self.joinKeyframes = joinKeyframes
        self.encoderRate = encoderRate
    }

    func nextFrame(from source: inout any FrameSource, into buffer: inout PixelBuffer, input: String) throws -> MediaTime? {
        do {
            return try source.nextFrame(into: &buffer)
        } catch {
            throw CLIError("stream: input \(input): \(error)")
        }
    }

    /// The frame's fate: the controller's decision applied to the pacer first (`applyFeedback`), then one
    /// `FrameDecider` call with the controller's target and budget and the sender's queue time. A skipped frame is
    /// told to the controller as one of 0 bytes (it is asked again for the next one's budget); a queue over 2 s is
    /// given up here, and the frame that follows is an IDR.
    mutating func decide(index: Int, logger: Logger) throws -> FrameDecider.Decision {
        let keyframeRequested = try applyFeedback(logger: logger)
        lastQueueTime = sender.expectedQueueTime
        let decision = decider.decide(
            at: clock.now, queueTime: lastQueueTime, target: UInt64(max(0, rate.allocation.encoderBitRate)),
            frameByteLimit: rate.frameByteLimit, keyframeRequested: keyframeRequested,
            mustEncode: encoder.forceIdr?.frames.contains(index) ?? false)
        switch decision {
        case .skip:
            rate.handle(.encodedFrame(bytes: 0, isKeyframe: false))
        case .flushAndKeyframe:
            let dropped = sender.flushQueue()
            logger.warning("the pacer queue took over \(decider.flushBound) to drain: \(dropped) packets given up, an IDR follows")
        case .encode:
            break
        }
        return decision
    }

    /// - Parameters:
    ///   - decision: the frame's (`decide`; nil for the first frame, which is an IDR anyway): the encoder's target
    ///     with the pushback applied (set when it moved), the IDR asked for, and the controller's byte budget, handed to
    ///     the session as `FrameOptions.maxFrameBytes` (libx264 holds the frame to it with a one-frame VBV; libx265 and
    ///     VA-API read their rate only at open): a frame that still comes out above it is counted (`budget_overruns`).
    mutating func encode(_ buffer: PixelBuffer, at time: MediaTime, index: Int = 0, decision: FrameDecider.Decision? = nil) throws {
        var keyframe = false
        var budget: Int?
        var target: UInt64?
        switch decision {
        case .encode(let rate, let maxFrameBytes, let forced): (target, budget, keyframe) = (rate, maxFrameBytes, forced)
        case .flushAndKeyframe(let rate, let maxFrameBytes): (target, budget, keyframe) = (rate, maxFrameBytes, true)
        case .skip, nil: break
        }
        if let target, Int(clamping: target) != encoderRate {
            do {
                try session.setAverageBitRate(Int(clamping: target))
            } catch {
                throw CLIError("stream: setting the encoder's bit rate to \(target) b/s: \(error)")
            }
            encoderRate = Int(clamping: target)
        }
        // Asked every frame (not short-circuited): it watches for the receiver's reports as well.
        let join = joinKeyframes.forceKeyframe(at: time.seconds, rtcpPacketsReceived: sender.statistics.rtcpPacketsReceived)
        let forced = keyframe || (encoder.forceIdr?.frames.contains(index) ?? false) || join
        do {
            try session.encode(buffer, presentationTime: time, options: CompressionSession.FrameOptions(forceKeyFrame: forced, maxFrameBytes: budget), context: index)
        } catch {
            throw CLIError("stream: frame \(index): \(error)")
        }
    }

    /// The peer's feedback since the last frame, through the rate's one owner: REMB/TMMBR (or the controller's
    /// estimate) move the pacing rate and the controller's target (never above --bitrate), which the encoder takes
    /// through `decide`/`encode` (the data-rate cap following it, as WebRTC re-sets
    /// kVTCompressionPropertyKey_DataRateLimits). Returns whether the peer asked for a keyframe (PLI/FIR).
    func applyFeedback(logger: Logger) throws -> Bool {
        guard let decision = rate.apply(toSender: sender) else { return false }
        if decision.changesRate, let allocation = decision.allocation {
            logger.debug("bit rate \(decision.previous.encoderBitRate) → \(allocation.encoderBitRate) b/s (\(rate.policyName))")
        }
        return decision.forceKeyframe
    }

    mutating func send(_ outputs: [EncoderOutput], statistics: inout StreamStatistics) throws {
        for output in outputs {
            if case .failure(let error) = output.status {
                throw CLIError("stream: encoder failed: \(error)")
            }
            statistics.add(output)
            decider.encoded(bytes: output.frame?.bytes.count ?? 0)
            guard let frame = output.frame else { continue }
            if frame.isKeyFrame { joinKeyframes.keyframeSent(at: frame.presentationTime.seconds) }
            rate.handle(.encodedFrame(bytes: frame.bytes.count, isKeyframe: frame.isKeyFrame))
            do {
                try sender.send(frame.accessUnit)
            } catch {
                throw CLIError("stream: sending frame at \(frame.presentationTime.seconds) s: \(error)")
            }
        }
    }

    /// ", 3 skipped by --cc rtenc, 2 skipped for the pacer queue, 1 queue flush" (empty when none).
    func skipSummary(controller: String) -> String {
        let s = decider.statistics
        return (s.skippedByController > 0 ? ", \(s.skippedByController) skipped by --cc \(controller)" : "")
            + (s.skippedByQueue > 0 ? ", \(s.skippedByQueue) skipped while the pacer queue was over \(decider.pushback.bound)" : "")
            + (s.flushes > 0 ? ", \(s.flushes) pacer queue\(s.flushes == 1 ? "" : "s") given up" : "")
    }
}
