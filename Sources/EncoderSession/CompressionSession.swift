import Bitstream
import Synchronization

/// A VTCompressionSession-shaped H.264 and HEVC encoder over libavcodec (libx264 and libx265, or VA-API through
/// h264_vaapi and hevc_vaapi).
///
/// Use: create with a `Configuration` (e.g. `.realTimeCommunication(width:height:averageBitRate:)`), call
/// `encode` once per frame with strictly increasing presentation times, receive one `EncoderOutput` per frame —
/// through the `outputHandler` passed at creation and through every stream made by `outputs()` — then
/// `completeFrames()` and `invalidate()`.
///
/// Threading: `encode` runs synchronously on the caller's thread; frames whose output is ready are delivered before
/// it returns (in real-time mode, always the frame just submitted). All state sits behind locks, so the session is
/// `Sendable` and may be shared between tasks; calls are serialised. The output handler runs inside that
/// serialisation: it may call `update(_:)`, `setAverageBitRate(_:)` and read properties, but must not call
/// `encode`, `completeFrames`, `reconfigure` or `invalidate` on the same session (that would deadlock).
public final class CompressionSession: Sendable {
    public typealias OutputHandler = @Sendable (EncoderOutput) -> Void

    private let engine: Mutex<EncoderEngine>
    /// Live properties set since the last frame; applied at the start of the next `encode`. Separate from the engine
    /// lock so the output handler and other threads can set them while a frame is being encoded.
    private let pendingLive: Mutex<LiveProperties?>
    /// A snapshot of what callers may read at any time without waiting for an encode to finish.
    private let snapshot: Mutex<(configuration: Configuration, encoderInUse: EncoderInUse, invalidated: Bool)>
    private let subscribers = Mutex<(next: Int, continuations: [Int: AsyncStream<EncoderOutput>.Continuation])>(
        (0, [:]))
    private let outputHandler: OutputHandler?

    /// Opens the encoder now (VTCompressionSessionCreate + property set-up), so a bad configuration, a level that
    /// cannot carry the stream or an unusable `.hardware` device fails here with a typed error.
    public convenience init(
        configuration: Configuration, outputHandler: OutputHandler? = nil
    ) throws(EncoderSessionError) {
        try self.init(configuration: configuration, factory: LibAVBackendFactory(), outputHandler: outputHandler)
    }

    init(
        configuration: Configuration, factory: any CodecBackendFactory, outputHandler: OutputHandler?
    ) throws(EncoderSessionError) {
        let engine = try EncoderEngine(configuration: configuration, factory: factory)
        snapshot = Mutex((engine.configuration, engine.encoderInUse, false))
        self.engine = Mutex(engine)
        pendingLive = Mutex(nil)
        self.outputHandler = outputHandler
    }

    deinit {
        invalidate()
    }

    // MARK: Properties

    /// The configuration in force, including live properties set but not yet applied.
    public var configuration: Configuration {
        var configuration = snapshot.withLock { $0.configuration }
        if let live = pendingLive.withLock({ $0 }) { configuration.live = live }
        return configuration
    }

    /// Which encoder is in use and why (e.g. the VA-API failure that made `.automatic` use libx264 or libx265).
    public var encoderInUse: EncoderInUse { snapshot.withLock { $0.encoderInUse } }

    public var isInvalidated: Bool { snapshot.withLock { $0.invalidated } }

    /// Changes live properties (bitrate, data-rate limits, keyframe intervals); they apply from the next frame.
    /// With libx264 a bitrate change goes through the session's rate controller; with VA-API and libx265 the
    /// encoder is reopened on the next frame, which becomes an IDR (`FrameStats.reopenedEncoder`).
    public func update(_ change: (inout LiveProperties) -> Void) throws(EncoderSessionError) {
        guard !isInvalidated else { throw .invalidated() }
        // Read-modify-write under the pending lock, so concurrent updates do not lose each other's changes.
        // (`change` runs under that lock: it must not call back into the session.)
        try pendingLive.withLock { (pending: inout LiveProperties?) throws(EncoderSessionError) in
            var live = pending ?? snapshot.withLock { $0.configuration.live }
            change(&live)
            try live.validate()
            pending = live
        }
    }

    /// kVTCompressionPropertyKey_AverageBitRate, live, with the data-rate limits moved along at the ratio they had
    /// to the old average — what WebRTC's encoder sets together on every bitrate change (average, and the 1.5× cap
    /// per second). After a REMB to 500 kb/s the cap is 750 kb/s, not the old 3 Mb/s. To set one without the other,
    /// use `update(_:)`.
    public func setAverageBitRate(_ bitsPerSecond: Int) throws(EncoderSessionError) {
        try update { $0.setAverageBitRateKeepingLimitRatios(bitsPerSecond) }
    }

    /// Applies a whole new configuration: live differences apply from the next frame; any other difference
    /// (size, format, profile/level, encoder, realTime, …) completes pending frames, closes the encoder and opens a
    /// new one, whose first frame is an IDR.
    public func reconfigure(_ newConfiguration: Configuration) throws(EncoderSessionError) {
        var outputs: [EncoderOutput] = []
        try engine.withLock { (engine: inout EncoderEngine) throws(EncoderSessionError) in
            // The new configuration's live properties supersede any set since the last frame.
            _ = pendingLive.withLock { $0.take() }
            var codecTime = 0.0
            defer { publish(engine) }
            do throws(EncoderSessionError) {
                try engine.reconfigure(newConfiguration, into: &outputs, codecTime: &codecTime)
            } catch {
                deliver(outputs)
                throw error
            }
            deliver(outputs)
        }
    }

    // MARK: Encoding

    /// Encodes one frame (VTCompressionSessionEncodeFrame).
    ///
    /// - Parameters:
    ///   - presentationTime: must be strictly after the previous frame's.
    ///   - duration: accepted for VideoToolbox parity; the encoder uses presentation times only.
    ///   - context: handed back untouched with this frame's output — also when the frame is dropped.
    /// - Throws: `.invalidPixelBuffer`, `.invalidTimestamp`, `.invalidated`, or a libav failure while opening or
    ///   submitting. A frame that throws was not accepted: no output will carry its context. A failure after the
    ///   frame was accepted is reported as the `status` of the outputs of the frames it hit, never thrown.
    public func encode(
        _ buffer: PixelBuffer, presentationTime: MediaTime, duration: MediaTime? = nil,
        options: FrameOptions = FrameOptions(), context: (any Sendable)? = nil
    ) throws(EncoderSessionError) {
        try engine.withLock { (engine: inout EncoderEngine) throws(EncoderSessionError) in
            let start = monotonicMicroseconds()
            if let live = pendingLive.withLock({ $0.take() }) {
                let time = engine.ticks(of: presentationTime).map {
                    Double($0) / Double(engine.configuration.timescale)
                }
                engine.apply(live, at: time)
            }
            var outputs: [EncoderOutput] = []
            var codecTime = 0.0
            defer { publish(engine) }
            do throws(EncoderSessionError) {
                try engine.encode(
                    buffer, presentationTime: presentationTime, options: options, context: context,
                    into: &outputs, codecTime: &codecTime)
            } catch {
                deliver(outputs)
                throw error
            }
            stamp(&outputs, start: start, codecTime: codecTime)
            deliver(outputs)
        }
    }

    /// Delivers every frame the encoder still holds (VTCompressionSessionCompleteFrames). libavcodec cannot flush
    /// part of its queue (end of stream is final), so `until` is accepted for parity and everything is completed;
    /// if anything was pending the encoder is reopened on the next frame, which becomes an IDR. In real-time mode
    /// nothing is ever pending: this returns at once and the stream continues undisturbed.
    public func completeFrames(until presentationTime: MediaTime? = nil) throws(EncoderSessionError) {
        try engine.withLock { (engine: inout EncoderEngine) throws(EncoderSessionError) in
            guard !engine.invalidated else { throw .invalidated() }
            let start = monotonicMicroseconds()
            var outputs: [EncoderOutput] = []
            var codecTime = 0.0
            defer { publish(engine) }
            do throws(EncoderSessionError) {
                try engine.complete(into: &outputs, codecTime: &codecTime)
            } catch {
                deliver(outputs)
                throw error
            }
            stamp(&outputs, start: start, codecTime: codecTime)
            deliver(outputs)
        }
    }

    /// Tears the session down now (VTCompressionSessionInvalidate): frames still inside the encoder are reported as
    /// dropped (their contexts come back), the encoder is freed, and every output stream finishes. Later calls
    /// throw `.invalidated`. Idempotent.
    public func invalidate() {
        engine.withLock { engine in
            guard !engine.invalidated else { return }
            var outputs: [EncoderOutput] = []
            engine.invalidate(into: &outputs)
            publish(engine)
            deliver(outputs)
        }
        let continuations = subscribers.withLock { state in
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    /// A stream of every output from now on (in addition to the handler). Finishes at `invalidate()`.
    /// `.unbounded` by default: a stream nobody reads keeps every output, so cancel or drop the task when done.
    public func outputs(
        bufferingPolicy: AsyncStream<EncoderOutput>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<EncoderOutput> {
        let (stream, continuation) = AsyncStream<EncoderOutput>.makeStream(bufferingPolicy: bufferingPolicy)
        if isInvalidated {
            continuation.finish()
            return stream
        }
        let id = subscribers.withLock { state in
            defer { state.next += 1 }
            state.continuations[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        // invalidate() may have run between the check above and the registration: it would have missed this one.
        if isInvalidated, let late = subscribers.withLock({ $0.continuations.removeValue(forKey: id) }) {
            late.finish()
        }
        return stream
    }

    // MARK: Delivery

    /// Fills in the timing of this call: the whole call, and the part outside libav's send/receive.
    private func stamp(_ outputs: inout [EncoderOutput], start: Double, codecTime: Double) {
        let total = monotonicMicroseconds() - start
        for index in outputs.indices {
            outputs[index].stats.encodeMicroseconds = total
            outputs[index].stats.overheadMicroseconds = max(0, total - codecTime)
        }
    }

    private func deliver(_ outputs: [EncoderOutput]) {
        guard !outputs.isEmpty else { return }
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for output in outputs {
            outputHandler?(output)
            for continuation in continuations { continuation.yield(output) }
        }
    }

    private func publish(_ engine: borrowing EncoderEngine) {
        let state = (engine.configuration, engine.encoderInUse, engine.invalidated)
        snapshot.withLock { $0 = state }
    }
}
