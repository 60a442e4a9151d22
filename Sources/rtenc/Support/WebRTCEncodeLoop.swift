import Bitstream
import CongestionControl
import EncoderSession
import FoundationEssentials
import Logging
import MediaIO
import RTPOut
import WebRTC
import WebRTCTransport

/// What the WebRTC transports take from the encoder loop: a `WebRTCServer` (`serve --whep`) and a `WebRTCPublisher`
/// (`stream --whip`).
protocol WebRTCMediaOutput {
    func send(_ accessUnit: CodedAccessUnit, captureTime: RTPInstant?)
    /// The rate policy's target before pushback (what the log reports).
    var encoderTarget: UInt64 { get }
    func nextFrame(mustEncode: Bool) -> WebRTCFrameDecision
    /// What the decisions came to (skips and why, flushes, budgets).
    var frameStatistics: FrameDecider.Statistics { get }
    /// What moves the target ("REMB", "transport-cc"), for the log.
    var rateSource: String { get }
    func takeLog() -> [String]
}

extension WebRTCServer: WebRTCMediaOutput {}
extension WebRTCPublisher: WebRTCMediaOutput {}

/// One encoder in real time feeding a WebRTC transport, for `serve --whep` and `stream --whip`: the first frame is
/// encoded before anything is offered or answered (its SPS says what to negotiate), then each frame waits for its
/// turn, takes the transport's decision (`FrameDecider`, as `stream`'s loop over plain RTP) — skip it while a peer's
/// pacer queue is too long or a peer's controller leaves it no bytes, else its target (REMB or the peers' controllers,
/// pushed back while the queue fills), its byte budget and keyframe requests (a new peer, PLI/FIR) — is encoded and
/// handed over.
struct WebRTCEncodeLoop {
    let command: String
    let input: InputOptions
    let encoder: EncoderOptions
    let session: CompressionSession
    let frameRate: Double
    let width: Int
    let height: Int
    /// The first frame's parameter sets (the VPS for HEVC only) and what they negotiate.
    let sequenceParameterSet: [UInt8]
    let pictureParameterSet: [UInt8]
    let videoParameterSet: [UInt8]?
    let encoding: WebRTCSDP.VideoEncoding
    private var source: any FrameSource
    private var buffer: PixelBuffer
    private let collector = OutputCollector()
    private let firstTime: MediaTime
    private var first: [EncoderOutput]

    /// Opens the input and the encoder and encodes the first frame.
    init(command: String, input: InputOptions, encoder: EncoderOptions) throws {
        self.command = command
        self.input = input
        self.encoder = encoder
        source = try input.open(command: command, live: true)
        frameRate = source.frameRate.doubleValue > 0 ? source.frameRate.doubleValue : 30
        width = source.width
        height = source.height
        do {
            session = try CompressionSession(
                configuration: encoder.configuration(width: source.width, height: source.height, frameRate: frameRate, pixelFormat: source.format),
                outputHandler: collector.handler)
        } catch {
            throw CLIError("\(command): cannot open the encoder: \(error)")
        }
        buffer = source.makeBuffer()
        guard let firstTime = try Self.nextFrame(from: &source, into: &buffer, command: command, input: input.input) else {
            session.invalidate()
            throw CLIError("\(command): input \(input.input) has no frames")
        }
        self.firstTime = firstTime
        try Self.encode(session, buffer, at: firstTime, index: 0, keyframe: true, command: command)
        first = collector.drain()
        let isHEVC = encoder.codec.codec == .hevc
        guard let parameterSets = first.lazy.compactMap({ $0.frame?.parameterSets }).first,
              let sps = parameterSets.sequenceParameterSets.first, let pps = parameterSets.pictureParameterSets.first,
              !isHEVC || !parameterSets.videoParameterSets.isEmpty
        else {
            session.invalidate()
            throw CLIError("\(command): the encoder gave no \(isHEVC ? "VPS/SPS/PPS" : "SPS/PPS") for the first frame")
        }
        sequenceParameterSet = sps
        pictureParameterSet = pps
        videoParameterSet = isHEVC ? parameterSets.videoParameterSets.first : nil
        do {
            encoding = try Self.encoding(sps: sps, codec: encoder.codec.codec, command: command)
        } catch {
            session.invalidate()
            throw error
        }
    }

    /// The encode loop, until `--frames`, `--duration`, the input's end, Ctrl-C or `isOver()` (the transport ended on
    /// its own). Writes one `--stats-json` line a second from `statistics`. Returns the frames and keyframes encoded.
    mutating func run(
        to transport: some WebRTCMediaOutput, duration: Double?, stop: StopSignal, statsFile: LinesFileWriter?, logger: Logger,
        isOver: () -> Bool = { false }, statistics: (_ elapsed: Double, _ encoder: EncoderState) -> ServeStatisticsLine
    ) throws -> (frames: Int, keyframes: Int) {
        let clockStart = MonotonicTime.now()
        var nextReport = 1.0
        var pacer = RealTimeFramePacer(maxLateness: .milliseconds(Int64(max(0.5, 2 / frameRate) * 1000)))
        pacer.restart(presentationTime: firstTime)
        var target = encoder.bitrate.bitsPerSecond
        var keyframes = 0
        var queueTime: Duration?
        var stages = StageDelays()
        var loggedTarget = target
        func forward(_ outputs: [EncoderOutput]) throws {
            for output in outputs {
                if case .failure(let error) = output.status { throw CLIError("\(command): encoder failed: \(error)") }
                guard let frame = output.frame else { continue }
                if frame.isKeyFrame { keyframes += 1 }
                transport.send(frame.accessUnit, captureTime: nil)
            }
            for line in transport.takeLog() { logger.info("\(line)") }
        }
        // One `--stats-json` line a second, skipped frames or not.
        func report() throws {
            let elapsed = MonotonicTime.now() - clockStart
            guard elapsed >= nextReport else { return }
            nextReport = elapsed.rounded(.down) + 1
            try statsFile?.write(statistics(elapsed, EncoderState(target: target, keyframes: keyframes,
                                                                  frames: transport.frameStatistics, queueTime: queueTime, stages: stages)))
        }
        try forward(first)
        var previousTime = firstTime
        var index = 1
        while !stop.isStopped, !isOver() {
            if let frames = input.frames, index >= frames { break }
            // Wait for the next frame's turn before taking it, as a camera delivers a picture when it is captured:
            // the test pattern's barcode then shows the time the frame was due, not a frame interval earlier.
            _ = pacer.waitForTurn(of: MediaTime(seconds: previousTime.seconds + 1 / frameRate), shouldStop: { stop.isStopped })
            let turn = MonotonicTime.now()
            guard let time = try Self.nextFrame(from: &source, into: &buffer, command: command, input: input.input) else { break }
            let drawn = MonotonicTime.now()
            previousTime = time
            if let duration, time.seconds - firstTime.seconds >= duration { break }
            guard pacer.waitForTurn(of: time, shouldStop: { stop.isStopped }) else {
                if stop.isStopped { break }
                index += 1
                continue
            }
            let forcedByOption = encoder.forceIdr?.frames.contains(index) ?? false
            let decision = transport.nextFrame(mustEncode: forcedByOption)
            queueTime = decision.queueTime
            if decision.skip {
                // A peer's pacer queue is over the bound, or a peer's controller left no bytes for it: this picture is
                // not encoded (the next is coded against the last one sent), so the queue drains instead of growing.
                index += 1
                try report()
                continue
            }
            let wanted = Int(decision.encoderTarget)
            if wanted != target {
                do {
                    try session.setAverageBitRate(wanted)
                } catch {
                    throw CLIError("\(command): setting the encoder's bit rate to \(wanted) b/s: \(error)")
                }
                target = wanted
            }
            // The policy's moves are logged; the pushback's frame-by-frame scaling of them is not.
            let policyTarget = Int(transport.encoderTarget)
            if policyTarget != loggedTarget {
                logger.info("encoder target \(loggedTarget / 1000) → \(policyTarget / 1000) kb/s (\(transport.rateSource))")
                loggedTarget = policyTarget
            }
            let forced = decision.forceKeyframe || forcedByOption
            try Self.encode(session, buffer, at: time, index: index, keyframe: forced, maxFrameBytes: decision.maxFrameBytes,
                            command: command)
            let outputs = collector.drain()
            let encoded = MonotonicTime.now()
            try forward(outputs)
            stages.record(turn: turn, drawn: drawn, encoded: encoded, queued: MonotonicTime.now())
            try report()
            index += 1
        }
        do {
            try session.completeFrames()
        } catch {
            throw CLIError("\(command): flushing the encoder: \(error)")
        }
        try forward(collector.drain())
        return (index, keyframes)
    }

    /// The encoder's side of a `--stats-json` line.
    struct EncoderState {
        var target: Int
        var keyframes: Int
        /// The per-frame decisions so far (`FrameDecider`): skips and why, flushes, budgets.
        var frames: FrameDecider.Statistics
        /// The longest expected pacer queue time among the peers at the last frame.
        var queueTime: Duration?
        /// What the recent frames spent in each step of this loop.
        var stages = StageDelays()
    }

    /// Where the recent frames' time went in the encode loop, over the last 64 frames encoded: the sender's share of
    /// glass-to-glass latency before the transport's pacer (whose share each peer's statistics hold).
    struct StageDelays {
        /// From the frame's turn to the picture in the buffer (the test pattern drawn, a file's frame decoded).
        var source = RecentDurations()
        /// From the picture to the encoder's output: the transport's frame decision, a bit-rate change, the encode.
        var encode = RecentDurations()
        /// The access units handed to the transport: packetized into every peer's queue, its I/O thread woken.
        var handOver = RecentDurations()

        /// One encoded frame's steps, as `MonotonicTime` seconds.
        mutating func record(turn: Double, drawn: Double, encoded: Double, queued: Double) {
            source.record(.seconds(drawn - turn))
            encode.record(.seconds(encoded - drawn))
            handOver.record(.seconds(queued - encoded))
        }
    }

    private static func nextFrame(from source: inout any FrameSource, into buffer: inout PixelBuffer, command: String, input: String) throws -> MediaTime? {
        do {
            return try source.nextFrame(into: &buffer)
        } catch {
            throw CLIError("\(command): input \(input): \(error)")
        }
    }

    /// `maxFrameBytes`: the lowest budget among the peers' controllers (rtenc's), held by libx264 with a one-frame VBV.
    private static func encode(_ session: CompressionSession, _ buffer: PixelBuffer, at time: MediaTime, index: Int, keyframe: Bool,
                               maxFrameBytes: Int? = nil, command: String) throws {
        do {
            try session.encode(buffer, presentationTime: time,
                               options: CompressionSession.FrameOptions(forceKeyFrame: keyframe, maxFrameBytes: maxFrameBytes), context: index)
        } catch {
            throw CLIError("\(command): frame \(index): \(error)")
        }
    }

    /// What offers and answers negotiate: the encoder's stream as its SPS says (H.264: profile_idc, constraint flags,
    /// level_idc; HEVC: the general profile_tier_level, RFC 7798's profile-id, tier-flag and level-id).
    static func encoding(sps: [UInt8], codec: VideoCodec, command: String) throws -> WebRTCSDP.VideoEncoding {
        if codec == .hevc {
            guard let parameters = HEVCFormatParameters(sequenceParameterSet: sps) else {
                throw CLIError("\(command): the encoder's SPS names no H.265 profile, tier and level rtenc can read")
            }
            return .hevc(parameters)
        }
        guard sps.count >= 4, let profile = H264Profile(profileIdc: sps[1], profileIop: sps[2]),
              let level = H264Level(rawValue: Int(sps[3]))
        else {
            throw CLIError("\(command): the encoder's SPS names no H.264 profile and level rtenc knows")
        }
        return .h264(profile: profile, level: level)
    }
}
