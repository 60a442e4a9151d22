import Bitstream
import EncoderSession
import MediaIO
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Drives a `CompressionSession` through a scenario under a policy and records every frame.
///
/// Time is simulated by default: frame i is stamped i / frameRate and submitted as soon as the previous one is
/// done, so a 12 s scenario at 320×240 takes well under a second of wall time and the result does not depend on how
/// busy the machine is (the encoder sees the same frames and timestamps either way). `realTime` instead waits until
/// each frame's time on the monotonic clock, for runs next to a live receiver.
public enum AdaptationHarness {
    public struct Options: Sendable {
        public var frameRate: Rational
        public var realTime: Bool
        public var preset: CompressionSession.Preset
        public var encoder: EncoderChoice
        public var threadCount: Int
        /// Force an IDR every this many seconds (what a receiver's PLI does), to see keyframes against the cap;
        /// nil: only the first frame is one.
        public var forcedKeyFrameInterval: Double?

        public init(
            frameRate: Rational = Rational(30, 1), realTime: Bool = false, preset: CompressionSession.Preset = .veryfast,
            encoder: EncoderChoice = .software, threadCount: Int = 2, forcedKeyFrameInterval: Double? = nil
        ) {
            self.forcedKeyFrameInterval = forcedKeyFrameInterval
            self.frameRate = frameRate
            self.realTime = realTime
            self.preset = preset
            self.encoder = encoder
            self.threadCount = threadCount
        }
    }

    /// Runs `scenario` to its end with frames from `source` (which must last that long: loop a file).
    /// - Throws: `.invalidArgument` for a bad frame rate, `.sourceFailed` when the source fails or ends early,
    ///   `.encoderFailed` when the session cannot open, refuses a frame or reports a failed one.
    public static func run(
        scenario: Scenario, policy: inout some BitratePolicy, source: inout some FrameSource,
        options: Options = Options()
    ) throws(AdaptationError) -> AdaptationRun {
        let rate = options.frameRate
        guard rate.numerator > 0, rate.denominator > 0 else {
            throw .make(.invalidArgument, "frame rate \(rate) must be positive")
        }
        if let interval = options.forcedKeyFrameInterval, !(interval > 0) {
            throw .make(.invalidArgument, "forced keyframe interval \(interval) s must be positive")
        }
        let fps = rate.doubleValue
        let frameCount = Int((scenario.duration * fps - FrameTimeline.slack).rounded(.up))
        var configuration = CompressionSession.Configuration.realTimeCommunication(
            width: source.width, height: source.height, averageBitRate: scenario.changes[0].bitRate,
            pixelFormat: source.format, encoder: options.encoder, expectedFrameRate: fps)
        configuration.preset = options.preset
        configuration.threadCount = options.threadCount
        configuration.rateControl = policy.rateControl
        configuration.live = policy.properties(forTarget: scenario.changes[0].bitRate, at: 0)

        let collected = Mutex<[EncoderOutput]>([])
        let session: CompressionSession
        do {
            session = try CompressionSession(configuration: configuration) { output in
                collected.withLock { $0.append(output) }
            }
        } catch {
            throw AdaptationError(code: .encoderFailed, reason: "cannot open the encoder: \(error)")
        }
        defer { session.invalidate() }

        var frames: [FrameRecord] = []
        frames.reserveCapacity(frameCount)
        var live = configuration.live
        var buffer = source.makeBuffer()
        let clock = ContinuousClock()
        let started = clock.now
        var nextForcedKeyFrame = options.forcedKeyFrameInterval

        func record(_ outputs: [EncoderOutput]) throws(AdaptationError) {
            for output in outputs {
                let index = output.context as? Int ?? -1
                if case .failure(let error) = output.status {
                    throw AdaptationError(code: .encoderFailed, reason: "frame \(index): \(error)")
                }
                let time = output.presentationTime.seconds
                let frame = FrameRecord(
                    index: index, time: time, target: scenario.target(at: time),
                    encoderBitRate: output.stats.targetBitRate, encoderMaxBitRate: output.stats.encoderMaxBitRate,
                    bytes: output.frame?.bytes.count ?? 0, qp: output.stats.qp,
                    isKeyFrame: output.frame?.isKeyFrame ?? false, dropReason: output.stats.dropReason)
                policy.observe(frame)
                frames.append(frame)
            }
        }

        for index in 0..<frameCount {
            // Exact: index × den / num ticks of 1/num s, so the encoder's timebase sees no rounding.
            let presentationTime = MediaTime(value: Int64(index * rate.denominator), timescale: Int64(rate.numerator))
            let time = presentationTime.seconds
            let sourceTime: MediaTime?
            do {
                sourceTime = try source.nextFrame(into: &buffer)
            } catch {
                throw AdaptationError(code: .sourceFailed, reason: "frame \(index): \(error)")
            }
            // The source's own timestamps are ignored: the harness's clock is the one the scenario runs on.
            guard sourceTime != nil else {
                throw AdaptationError(
                    code: .sourceFailed,
                    reason: "the source ended after \(index) frames; the scenario needs \(frameCount) (loop it)")
            }
            let wanted = policy.properties(forTarget: scenario.target(at: time), at: time)
            do {
                if wanted != live {
                    try session.update { $0 = wanted }
                    live = wanted
                }
                if options.realTime { sleep(until: started + .seconds(time), clock: clock) }
                var frameOptions = CompressionSession.FrameOptions()
                if let due = nextForcedKeyFrame, let interval = options.forcedKeyFrameInterval,
                    time >= due - FrameTimeline.slack
                {
                    frameOptions.forceKeyFrame = true
                    nextForcedKeyFrame = due + interval
                }
                try session.encode(buffer, presentationTime: presentationTime, options: frameOptions, context: index)
            } catch {
                throw AdaptationError(code: .encoderFailed, reason: "frame \(index): \(error)")
            }
            try record(collected.withLock { outputs in
                defer { outputs.removeAll(keepingCapacity: true) }
                return outputs
            })
        }
        do {
            try session.completeFrames()
        } catch {
            throw AdaptationError(code: .encoderFailed, reason: "completing frames: \(error)")
        }
        try record(collected.withLock { $0 })
        frames.sort { $0.index < $1.index }
        let elapsed = clock.now - started
        let wallSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return AdaptationRun(
            scenario: scenario, policyName: policy.name, policySummary: policy.summary, frames: frames,
            metrics: AdaptationMetrics(
                frames: frames, scenario: scenario, parameters: .init(frameRate: fps)),
            encoderName: session.encoderInUse.name, width: source.width, height: source.height, frameRate: fps,
            wallSeconds: wallSeconds)
    }

    /// Blocks the calling thread until `deadline` (a synchronous harness has no executor to suspend on).
    private static func sleep(until deadline: ContinuousClock.Instant, clock: ContinuousClock) {
        let remaining = deadline - clock.now
        guard remaining > .zero else { return }
        let (seconds, attoseconds) = remaining.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remainder = timespec()
        while nanosleep(&request, &remainder) != 0, errno == EINTR { request = remainder }
    }
}

/// One policy's run of one scenario: the frames and what they add up to.
public struct AdaptationRun: Sendable {
    public var scenario: Scenario
    public var policyName: String
    public var policySummary: String
    public var frames: [FrameRecord]
    public var metrics: AdaptationMetrics
    /// "libx264" (or "h264_vaapi").
    public var encoderName: String
    public var width: Int
    public var height: Int
    public var frameRate: Double
    /// Wall time of the run, seconds (how much faster than real time a simulated run was).
    public var wallSeconds: Double
}
