import CongestionSimulation
import EncoderSession
import MediaIO
import Synchronization

/// Real libx264 in the simulator's loop (`rtenc bench cc --codec x264`): a `CompressionSession` set up as `rtenc
/// stream` sets it up (WebRTC's real-time configuration: no reordering, ABR with the 1.5× one-second cap the session
/// enforces, x264's VBV steered around rate steps), fed MediaIO's built-in test pattern — no lavfi, no files — and
/// stamped with the simulated capture times, as BitrateAdaptation's harness drives it. The controller's rate goes in
/// through `setAverageBitRate` (what `LiveBitrateController` calls live), the receiver's PLI as a forced IDR, and each
/// frame's real access unit goes to the send session.
///
/// The bars alone are too easy: x264 codes a moving box on a still background in ~55 kb/s at 320×180 whatever the
/// target, so the flow would never fill a link. Like a camera, each frame gets fresh grain — uniform luma noise of
/// ±`grain` levels, seeded — which the encoder can always spend more bits on: the output follows the target across
/// RFC 8867's media range the way a real scene's does, keyframes several times a P frame.
///
/// Deterministic for a configuration: one encoder thread, the grain seeded, and the pattern's clock digits pinned
/// (they would draw the wall clock), so the same run gives the same bytes.
public final class X264Codec: SimulatedCodec {
    public struct Configuration: Sendable, Hashable {
        public var width: Int
        public var height: Int
        public var framesPerSecond: Int
        /// Frames from one keyframe to the next (0: only the first frame and requested ones).
        public var keyframeInterval: Int
        public var preset: CompressionSession.Preset
        /// The test pattern's picture: `bars` (colour bars, ramp, a moving box) or `noise` (incompressible).
        public var content: TestPatternSource.Content
        /// Luma grain added to every frame, ± levels (0: none).
        public var grain: Int
        public var grainSeed: UInt64

        public init(width: Int = 320, height: Int = 180, framesPerSecond: Int = 30, keyframeInterval: Int = 0,
                    preset: CompressionSession.Preset = .veryfast, content: TestPatternSource.Content = .bars,
                    grain: Int = 8, grainSeed: UInt64 = 1) {
            self.grain = grain
            self.grainSeed = grainSeed
            self.width = width
            self.height = height
            self.framesPerSecond = framesPerSecond
            self.keyframeInterval = keyframeInterval
            self.preset = preset
            self.content = content
        }
    }

    /// The pattern's wall-clock digits, pinned (2023-11-14 22:13:20 UTC).
    static let patternClock: Int64 = 1_700_000_000_000

    public let configuration: Configuration
    public let frameInterval: Int64
    public private(set) var framesSkipped = 0
    /// Frames given a positive byte budget whose access unit still exceeded it (`FrameStats.exceededFrameBudget`:
    /// the session caps a budgeted frame through x264's VBV, `FrameOptions.maxFrameBytes`).
    public private(set) var budgetOverruns = 0
    /// Frames given a positive byte budget.
    public private(set) var budgetedFrames = 0
    /// The largest access unit over its positive budget, as a multiple of the budget (1: none over).
    public private(set) var largestBudgetRatio = 0.0
    /// Budgeted frames' access units as a fraction of their budgets, summed (÷ `budgetedFrames`: the mean fill).
    public private(set) var budgetRatioSum = 0.0
    private let session: CompressionSession
    private let outputs = Outputs()
    private var source: TestPatternSource
    private var buffer: PixelBuffer
    private var keyframeRequested = false
    private var grainState: UInt64

    /// Opens libx264 at `bitsPerSecond`.
    /// - Throws: `.invalidArgument` for a bad size or frame rate, `.codec` when libx264 cannot be opened.
    public init(configuration: Configuration = Configuration(), target bitsPerSecond: Int) throws(SimulationError) {
        guard configuration.framesPerSecond > 0 else {
            throw SimulationError(code: .invalidArgument, reason: "a frame rate of \(configuration.framesPerSecond)")
        }
        guard (0 ... 100).contains(configuration.grain) else {
            throw SimulationError(code: .invalidArgument, reason: "grain of ±\(configuration.grain) levels (0…100)")
        }
        guard bitsPerSecond > 0 else { throw SimulationError(code: .invalidArgument, reason: "a target of \(bitsPerSecond) b/s") }
        self.configuration = configuration
        grainState = configuration.grainSeed | 1
        frameInterval = 1_000_000_000 / Int64(configuration.framesPerSecond)
        do {
            source = try TestPatternSource(width: configuration.width, height: configuration.height,
                                           frameRate: Rational(configuration.framesPerSecond, 1), content: configuration.content,
                                           clock: { X264Codec.patternClock })
        } catch {
            throw SimulationError(code: .invalidArgument, reason: "the test pattern: \(error)")
        }
        buffer = source.makeBuffer()
        var settings = CompressionSession.Configuration.realTimeCommunication(
            width: configuration.width, height: configuration.height, averageBitRate: bitsPerSecond, pixelFormat: source.format,
            encoder: .software, expectedFrameRate: Double(configuration.framesPerSecond))
        settings.preset = configuration.preset
        settings.threadCount = 1
        if configuration.keyframeInterval > 0 { settings.live.maxKeyFrameInterval = configuration.keyframeInterval }
        let outputs = self.outputs
        do {
            session = try CompressionSession(configuration: settings) { output in outputs.list.withLock { $0.append(output) } }
        } catch {
            throw SimulationError(code: .codec, reason: "cannot open libx264: \(error)")
        }
    }

    deinit { session.invalidate() }

    /// In band: x264 writes SPS and PPS before every IDR (no global header).
    public var parameterSets: (sequence: [UInt8], picture: [UInt8])? { nil }

    public func setTarget(_ bitsPerSecond: Double, at now: Int64) throws(SimulationError) {
        let rate = max(1, Int(bitsPerSecond.rounded()))
        do { try session.setAverageBitRate(rate) } catch {
            throw SimulationError(code: .codec, reason: "libx264 refused \(rate) b/s: \(error)")
        }
    }

    public func requestKeyframe() { keyframeRequested = true }

    public func encode(at now: Int64, presentationTime: MediaTime, budget: Int?,
                       random: inout SimulationRandom) throws(SimulationError) -> SimulatedFrame? {
        // The pattern moves on whether or not the frame is encoded: it is what the camera saw at `now`.
        let captured: MediaTime?
        do { captured = try source.nextFrame(into: &buffer) } catch {
            throw SimulationError(code: .codec, reason: "the test pattern: \(error)")
        }
        guard captured != nil else { throw SimulationError(code: .codec, reason: "the test pattern ended") }
        addGrain()
        // The budget goes to the session as a live sender would hand it: 0 drops the frame before encoding (a
        // keyframe due on it moves to the next frame), a positive one caps the frame through x264's VBV.
        do {
            try session.encode(buffer, presentationTime: presentationTime,
                               options: .init(forceKeyFrame: keyframeRequested, maxFrameBytes: budget))
        } catch {
            throw SimulationError(code: .codec, reason: "libx264 at \(presentationTime.seconds) s: \(error)")
        }
        keyframeRequested = false
        // Real-time mode: the frame's output is delivered before `encode` returns.
        let delivered = outputs.list.withLock { outputs in
            defer { outputs.removeAll(keepingCapacity: true) }
            return outputs
        }
        var result: SimulatedFrame?
        for output in delivered {
            if case .failure(let error) = output.status {
                throw SimulationError(code: .codec, reason: "libx264 at \(output.presentationTime.seconds) s: \(error)")
            }
            guard let frame = output.frame else {
                framesSkipped += 1  // dropped by the session's hard cap or a budget of 0
                continue
            }
            if let budget = output.stats.frameBudgetBytes, budget > 0 {
                budgetedFrames += 1
                if output.stats.exceededFrameBudget { budgetOverruns += 1 }
                largestBudgetRatio = max(largestBudgetRatio, Double(output.stats.bytes) / Double(budget))
                budgetRatioSum += Double(output.stats.bytes) / Double(budget)
            }
            result = SimulatedFrame(accessUnit: frame.accessUnit, bytes: frame.accessUnit.bytes.count)
        }
        return result
    }
}

extension X264Codec {
    /// ±`grain` on every luma sample, clamped (xorshift64*: a few ns a sample).
    private func addGrain() {
        let grain = configuration.grain
        guard grain > 0 else { return }
        let span = UInt64(2 * grain + 1)
        var state = grainState
        let (width, height, stride) = (buffer.width, buffer.height, buffer.planes[0].bytesPerRow)
        buffer.planes[0].bytes.withUnsafeMutableBufferPointer { luma in
            for row in 0 ..< height {
                let base = row * stride
                for x in 0 ..< width {
                    state ^= state >> 12
                    state ^= state << 25
                    state ^= state >> 27
                    let offset = Int(((state &* 0x2545_F491_4F6C_DD1D) >> 32) % span) - grain
                    luma[base + x] = UInt8(clamping: Int(luma[base + x]) + offset)
                }
            }
        }
        grainState = state
    }
}

/// What the session's output handler collects between `encode` and the frame's return (the handler must be
/// `Sendable`: a reference to a lock, not the codec).
private final class Outputs: Sendable {
    let list = Mutex<[EncoderOutput]>([])
}
