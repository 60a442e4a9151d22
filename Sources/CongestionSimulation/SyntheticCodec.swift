/// A synthetic video encoder after RFC 8593's statistical model, for closed loops that must run in seconds: frames
/// at a fixed rate sized from the target, a keyframe every `keyframeInterval` frames (a multiple of a P frame),
/// per-frame variation, and rtenc's encoder's hard cap (no 1 s window above `hardCap` × target: the frame is cut to
/// fit, or skipped when nothing fits). Optionally the encoder lags behind a new target the way x264 does
/// (NOTES-libav: ~1.5× the new target for seconds after a step down), and it honours a per-frame byte budget.
public struct SyntheticCodec: Sendable {
    public enum Reaction: Sendable, Hashable {
        /// The next frame follows the new target.
        case immediate
        /// After a step the output starts at min(old, `overshoot` × new) and reaches the new target linearly over
        /// `settle` (ns): x264's plain reconfiguration measured ~1.5× for 4+ s after 2 Mb/s → 500 kb/s.
        case lagged(overshoot: Double, settle: Int64)
    }

    public struct Configuration: Sendable, Hashable {
        public var framesPerSecond: Int
        /// Frames from one keyframe to the next (0: only the first frame and requested ones).
        public var keyframeInterval: Int
        /// A keyframe's size as a multiple of a P frame's.
        public var keyframeSizeMultiple: Double
        /// Each frame is ± this fraction of its nominal size, uniformly.
        public var sizeVariation: Double
        /// No 1 s window holds more than this × the target (rtenc's session cap: 1.5).
        public var hardCap: Double
        public var reaction: Reaction
        /// The smallest frame worth sending; below it a frame is skipped.
        public var minimumFrameBytes: Int

        public init(framesPerSecond: Int = 30, keyframeInterval: Int = 0, keyframeSizeMultiple: Double = 5,
                    sizeVariation: Double = 0.1, hardCap: Double = 1.5, reaction: Reaction = .immediate,
                    minimumFrameBytes: Int = 60) {
            self.framesPerSecond = framesPerSecond
            self.keyframeInterval = keyframeInterval
            self.keyframeSizeMultiple = keyframeSizeMultiple
            self.sizeVariation = sizeVariation
            self.hardCap = hardCap
            self.reaction = reaction
            self.minimumFrameBytes = minimumFrameBytes
        }
    }

    public struct Frame: Sendable, Hashable {
        public var bytes: Int
        public var isKeyframe: Bool
    }

    public let configuration: Configuration
    public private(set) var target: Double
    private var stepStart: (time: Int64, from: Double)?
    private var window: [(time: Int64, bytes: Int)] = []
    private var windowHead = 0
    private var windowBytes = 0
    private var framesSinceKeyframe = 0
    private var keyframeRequested = true
    public private(set) var framesSkipped = 0

    public init(configuration: Configuration = Configuration(), target bitsPerSecond: Double) throws(SimulationError) {
        guard configuration.framesPerSecond > 0 else { throw .make(.invalidArgument, "a frame rate of \(configuration.framesPerSecond)") }
        guard configuration.keyframeSizeMultiple >= 1, (0 ..< 1).contains(configuration.sizeVariation), configuration.hardCap >= 1 else {
            throw .make(.invalidArgument, "keyframe multiple below 1, size variation outside 0…1 or a hard cap below 1")
        }
        self.configuration = configuration
        target = bitsPerSecond
    }

    /// The frame interval, ns.
    public var frameInterval: Int64 { 1_000_000_000 / Int64(configuration.framesPerSecond) }

    public mutating func setTarget(_ bitsPerSecond: Double, at now: Int64) {
        guard bitsPerSecond != target else { return }
        stepStart = (now, effectiveTarget(at: now))
        target = bitsPerSecond
    }

    public mutating func requestKeyframe() { keyframeRequested = true }

    /// The rate the encoder really aims at `now` (the target, or on its way there).
    public func effectiveTarget(at now: Int64) -> Double {
        guard case .lagged(let overshoot, let settle) = configuration.reaction, let step = stepStart, settle > 0 else { return target }
        let start = step.from > target ? min(step.from, overshoot * target) : step.from
        let progress = min(1, Double(now - step.time) / Double(settle))
        return start + (target - start) * progress
    }

    /// Encodes the frame captured at `now`; nil when it is skipped (the hard cap or `budget` leave no room).
    public mutating func encode(at now: Int64, budget: Int? = nil, random: inout SimulationRandom) -> Frame? {
        let fps = Double(configuration.framesPerSecond)
        let isKeyframe = keyframeRequested || (configuration.keyframeInterval > 0 && framesSinceKeyframe >= configuration.keyframeInterval)
        // P frames are shrunk so that a keyframe interval averages to the target.
        var pFrame = effectiveTarget(at: now) / 8 / fps
        if configuration.keyframeInterval > 0 {
            let n = Double(configuration.keyframeInterval)
            pFrame *= n / (n - 1 + configuration.keyframeSizeMultiple)
        }
        var size = (isKeyframe ? configuration.keyframeSizeMultiple : 1) * pFrame * (1 + configuration.sizeVariation * random.symmetric())
        // The hard cap over the last second (frames captured after now − 1 s).
        while windowHead < window.count, window[windowHead].time <= now - 1_000_000_000 {
            windowBytes -= window[windowHead].bytes
            windowHead += 1
        }
        if windowHead > 256 {
            window.removeFirst(windowHead)
            windowHead = 0
        }
        let room = configuration.hardCap * target / 8 - Double(windowBytes)
        size = min(size, room)
        if let budget { size = min(size, Double(budget)) }
        guard size >= Double(configuration.minimumFrameBytes) else {
            framesSkipped += 1
            return nil
        }
        let bytes = Int(size)
        window.append((now, bytes))
        windowBytes += bytes
        if isKeyframe {
            keyframeRequested = false
            framesSinceKeyframe = 1
        } else {
            framesSinceKeyframe += 1
        }
        return Frame(bytes: bytes, isKeyframe: isKeyframe)
    }
}
