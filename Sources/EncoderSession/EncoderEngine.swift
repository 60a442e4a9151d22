import Bitstream

/// The session's state machine, free of locks and of libav: it talks to a `CodecBackend` and returns outputs for
/// the session to deliver. One instance lives inside `CompressionSession`'s engine lock.
///
///     init ──▶ open ──── drain, close ────▶ closed       completeFrames with frames pending; VA-API bitrate
///               ▲                             │          change; x264 bitrate above its ABR headroom;
///               └── next encode: reopen ◀─────┘          reconfigure of a fixed property (reopens at once)
///                   (that frame is an IDR)
///     open, closed ── invalidate ──▶ invalidated         frames still pending come back as dropped
struct EncoderEngine {
    struct Pending {
        var presentationTime: MediaTime
        var context: (any Sendable)?
        var targetBitRate: Int
        var maxBitRate: Int?
        var reopened: Bool
        var call: UInt64
        /// `FrameOptions.maxFrameBytes`.
        var frameBudget: Int? = nil
    }

    // Properties without `private` are read by the output half in EncoderEngine+Output.swift.
    private(set) var configuration: Configuration
    private let factory: any CodecBackendFactory
    private var backend: (any CodecBackend)?
    private(set) var encoderInUse: EncoderInUse
    private(set) var invalidated = false

    var analyzer: FrameAnalyzer
    var rate: RateController
    /// Frames inside the encoder, keyed by pts ticks (strictly increasing, so unique): libavcodec 5.1 has no
    /// AV_CODEC_FLAG_COPY_OPAQUE and `reordered_opaque` works for libx264 only.
    var pending: [Int64: Pending] = [:]
    /// Outputs of frames refused before encoding while frames submitted earlier were still inside the encoder (a
    /// lookahead or B-frames): each waits here until those have come back, so contexts return in submission order.
    var heldDrops: [(call: UInt64, output: EncoderOutput)] = []
    private var lastPTS: Int64?
    var call: UInt64 = 0
    private var justOpened = true
    private var needsReopen = false
    /// The rate the current encoder was opened with: what one that reads its rate only at open (libx265, VA-API)
    /// encodes at until it is reopened, and so what its frames report.
    private var openedRate: RateSettings?

    // Keyframe policy state.
    private var framesSinceIDR = 0
    private var lastIDRTime: Double?
    /// A frame was refused after encoding; later frames reference it, so the next delivered frame must be an IDR.
    var referenceBroken = false
    /// An IDR was due (forced or scheduled) but its frame was dropped before encoding.
    var keyFrameOwed = false

    var lastParameterSets: EncodedFrame.ParameterSets?
    /// SPS/PPS from extradata (AVCC output), emitted with the first frame after an open.
    var outOfBandParameterSets: EncodedFrame.ParameterSets?
    private var packets: [CodecPacket] = []

    init(configuration: Configuration, factory: any CodecBackendFactory) throws(EncoderSessionError) {
        try configuration.validate()
        self.configuration = configuration
        self.factory = factory
        self.rate = RateController(live: configuration.live, mode: configuration.rateControl)
        self.analyzer = FrameAnalyzer(codec: configuration.codec)
        self.encoderInUse = EncoderInUse(name: "", isHardwareAccelerated: false, reason: "")
        try open()
    }

    // MARK: Open / close

    private mutating func open() throws(EncoderSessionError) {
        let fixedRate = rate.fixedRateSettings
        let (backend, inUse) = try Self.openBackend(
            configuration: configuration, rate: rate.current, fixedRate: fixedRate, abrBitRate: rate.abrBitRate,
            factory: factory)
        openedRate = fixedRate
        self.backend = backend
        encoderInUse = inUse
        justOpened = true
        needsReopen = false
        outOfBandParameterSets = nil
        if analyzer.codec != configuration.codec { analyzer = FrameAnalyzer(codec: configuration.codec) }
        if !backend.extradata.isEmpty {
            var extradata = backend.extradata
            let ranges = try FrameAnalyzer.nalUnits(of: extradata, codec: configuration.codec)
            patchParameterSets(in: &extradata, nalUnits: ranges)
            let analysis = try analyzer.analyze(extradata, nalUnits: ranges)
            // The avcC record (ISO/IEC 14496-15 §5.3.3.1.1), built by Bitstream; nil when the sets cannot form one
            // (then frames still go out, without a record). HEVC's hvcC (§8.3.3) is not built yet: its parameter
            // sets go out without a record.
            outOfBandParameterSets = EncodedFrame.ParameterSets(
                videoParameterSets: analysis.videoParameterSets,
                sequenceParameterSets: analysis.sequenceParameterSets,
                pictureParameterSets: analysis.pictureParameterSets,
                avcC: configuration.codec == .h264
                    ? try? AVCDecoderConfigurationRecord(
                        sequenceParameterSets: analysis.sequenceParameterSets,
                        pictureParameterSets: analysis.pictureParameterSets) : nil)
        }
    }

    /// Picks and opens the backend for `configuration.encoder`; `.automatic` falls back to the software encoder for
    /// the codec (libx264, libx265) and says why.
    static func openBackend(
        configuration: Configuration, rate: RateSettings, fixedRate: RateSettings, abrBitRate: Int,
        factory: any CodecBackendFactory
    ) throws(EncoderSessionError) -> (any CodecBackend, EncoderInUse) {
        let globalHeader = configuration.outputFormat == .avcc
        func open(_ kind: BackendKind) throws(EncoderSessionError) -> any CodecBackend {
            let backend = try factory.open(
                BackendOpenRequest(
                    kind: kind, configuration: configuration, rate: rate, fixedRate: fixedRate, abrBitRate: abrBitRate,
                    globalHeader: globalHeader))
            guard backend.codec == configuration.codec else {
                throw EncoderSessionError(
                    code: .unsupportedCodec,
                    reason: "\(backend.encoderName) encodes \(backend.codec), the configuration asks for \(configuration.codec)")
            }
            return backend
        }
        switch configuration.encoder {
        case .software:
            let backend = try open(.software(for: configuration.codec))
            return (backend, EncoderInUse(backend, reason: "software encoder requested"))
        case .hardware(let device):
            let backend = try open(.vaapi(device: device))
            return (backend, EncoderInUse(backend, reason: "hardware encoder requested (\(device))"))
        case .automatic:
            let device = EncoderChoice.defaultRenderNode
            do {
                let backend = try open(.vaapi(device: device))
                return (backend, EncoderInUse(backend, reason: "VA-API available on \(device)"))
            } catch {
                let backend = try open(.software(for: configuration.codec))
                let why = error.libavMessage.map { "\(error.reason): \($0)" } ?? error.reason
                return (backend, EncoderInUse(backend, reason: "\(why) — using \(backend.encoderName)"))
            }
        }
    }

    /// Sends end of stream and turns everything the encoder still holds into outputs; frames it never returns are
    /// reported dropped. The backend is closed; the next frame reopens it.
    mutating func drainAndClose(
        into outputs: inout [EncoderOutput], codecTime: inout Double
    ) throws(EncoderSessionError) {
        guard let backend else { return }
        if !pending.isEmpty {
            try backend.sendEndOfStream()
            packets.removeAll(keepingCapacity: true)
            codecTime += try backend.receive(into: &packets)
            for packet in packets {
                try deliver(packet, into: &outputs)
                releaseHeldDrops(into: &outputs)
            }
        }
        flushPending(into: &outputs)
        self.backend = nil
    }

    /// completeFrames: drains and closes only when the encoder holds frames. A real-time encoder never does, so
    /// there this is free and the stream goes on without a new IDR.
    mutating func complete(into outputs: inout [EncoderOutput], codecTime: inout Double) throws(EncoderSessionError) {
        guard !pending.isEmpty else { return }
        try drainAndClose(into: &outputs, codecTime: &codecTime)
    }

    /// Reports every frame still inside the encoder as dropped and frees everything. Idempotent.
    mutating func invalidate(into outputs: inout [EncoderOutput]) {
        flushPending(into: &outputs)
        backend = nil
        invalidated = true
    }

    // MARK: Properties

    mutating func apply(_ live: LiveProperties, at time: Double?) {
        let bitrateChanged = live.averageBitRate != configuration.live.averageBitRate
        configuration.live = live
        rate.update(live, at: time)
        guard bitrateChanged, let backend else { return }
        if !backend.appliesRateLive { needsReopen = true }
        if let ceiling = backend.maxLiveAverageBitRate, rate.effectiveTarget > ceiling { needsReopen = true }
    }

    /// A new configuration: live changes apply from the next frame; anything else drains, closes and reopens.
    mutating func reconfigure(
        _ newConfiguration: Configuration, into outputs: inout [EncoderOutput], codecTime: inout Double
    ) throws(EncoderSessionError) {
        guard !invalidated else { throw .invalidated() }
        try newConfiguration.validate()
        if !configuration.needsNewEncoder(comparedTo: newConfiguration) {
            apply(newConfiguration.live, at: lastPTS.map { Double($0) / Double(configuration.timescale) })
            return
        }
        try drainAndClose(into: &outputs, codecTime: &codecTime)
        let oldTimescale = configuration.timescale
        configuration = newConfiguration
        rate = RateController(live: newConfiguration.live, mode: newConfiguration.rateControl)
        if oldTimescale != newConfiguration.timescale, let last = lastPTS {
            lastPTS = MediaTime(value: last, timescale: oldTimescale).converted(to: newConfiguration.timescale).value
        }
        try open()
    }

    // MARK: Encode

    /// `time` in ticks of the session's timescale; nil for an invalid time or one whose conversion overflows
    /// (MediaTime.converted clamps, so a clamped result means overflow).
    func ticks(of time: MediaTime) -> Int64? {
        guard time.isValid else { return nil }
        let value = time.converted(to: configuration.timescale).value
        guard value != .max, value != .min else { return nil }
        return value
    }

    mutating func encode(
        _ buffer: PixelBuffer, presentationTime: MediaTime, options: FrameOptions, context: (any Sendable)?,
        into outputs: inout [EncoderOutput], codecTime: inout Double
    ) throws(EncoderSessionError) {
        guard !invalidated else { throw .invalidated() }
        try buffer.validate(against: configuration)
        if let budget = options.maxFrameBytes, budget < 0 {
            throw .make(.invalidConfiguration, "a frame budget of \(budget) bytes (maxFrameBytes is 0 or more)")
        }
        guard let ticks = ticks(of: presentationTime) else {
            throw .make(.invalidTimestamp, "presentation time \(presentationTime) is invalid or overflows the timebase")
        }
        if let lastPTS, ticks <= lastPTS {
            throw .make(.invalidTimestamp,
                "presentation time \(presentationTime) (\(ticks) ticks of 1/\(configuration.timescale)) "
                    + "is not after the previous frame's (\(lastPTS))"
            )
        }
        call &+= 1
        let time = Double(ticks) / Double(configuration.timescale)

        var reopened = false
        if backend == nil || needsReopen {
            if backend != nil { try drainAndClose(into: &outputs, codecTime: &codecTime) }
            try open()
            reopened = true
        }
        guard let backend else { throw .invalidated() }
        lastPTS = ticks
        if justOpened { reopened = true }

        let live = configuration.live
        var forceIDR = justOpened || options.forceKeyFrame || referenceBroken || keyFrameOwed
        if live.maxKeyFrameInterval > 0, framesSinceIDR >= live.maxKeyFrameInterval { forceIDR = true }
        if live.maxKeyFrameIntervalDuration > 0, let lastIDRTime, time - lastIDRTime >= live.maxKeyFrameIntervalDuration
        {
            forceIDR = true
        }

        var settings = rate.settings(before: time)
        // A frame budget narrows the VBV for this frame only; `rate` keeps its own settings for the next.
        if let budget = options.maxFrameBytes, budget > 0 {
            settings = settings.cappingFrame(toBytes: budget, framesPerSecond: configuration.effectiveFrameRate)
        }
        if backend.appliesRateLive { backend.setRate(settings) }
        let frame = Pending(
            presentationTime: presentationTime, context: context,
            targetBitRate: live.averageBitRate,
            maxBitRate: backend.appliesRateLive ? settings.maxBitRate : openedRate?.maxBitRate ?? settings.maxBitRate,
            reopened: reopened, call: call, frameBudget: options.maxFrameBytes)

        // Hard limits and a budget of 0, before encoding: refuse a frame whose predicted size would overflow a window,
        // or that may take no bytes. Dropping here costs the decoder nothing — the encoder never saw the frame.
        var refusal: DropReason?
        if options.maxFrameBytes == 0 {
            refusal = referenceBroken ? .awaitingKeyFrame : .frameBudget
        } else if rate.enforcesLimits {
            var predicted = rate.predictedBytes(isIDR: forceIDR)
            if let budget = options.maxFrameBytes { predicted = min(predicted, budget) }
            if predicted > 0, !rate.fits(bytes: predicted, at: time) {
                refusal = referenceBroken ? .awaitingKeyFrame : .dataRateLimit
            }
        }
        if let refusal {
            if forceIDR { keyFrameOwed = true }
            var output = dropped(frame, reason: refusal)
            if heldDrops.isEmpty, pending.isEmpty {  // everything in `pending` was submitted before this frame
                outputs.append(output)
            } else {
                // Delivered by a later call (or the flush): asynchronous, like the frames it waits behind.
                output.infoFlags.insert(.asynchronous)
                heldDrops.append((frame.call, output))
            }
            return
        }

        pending[ticks] = frame
        do {
            codecTime += try backend.send(buffer, pts: ticks, forceIDR: forceIDR)
        } catch {
            pending[ticks] = nil
            if !backend.isOpen {
                // It closed itself (e.g. libavcodec kept a reference to lent pixels): what it held is lost. Those
                // frames come back failed, and the next frame opens a new encoder (an IDR).
                flushPending(into: &outputs, failure: error)
                self.backend = nil
            }
            throw error
        }
        justOpened = false
        if forceIDR {
            framesSinceIDR = 0
            lastIDRTime = time
            keyFrameOwed = false
        }
        framesSinceIDR += 1

        // From here the frame is accepted: a failure is reported through the outputs of the frames it hit (their
        // contexts come back with the error as status, VideoToolbox-style), not thrown, and the encoder is reopened
        // on the next frame.
        do throws(EncoderSessionError) {
            packets.removeAll(keepingCapacity: true)
            codecTime += try backend.receive(into: &packets)
            for packet in packets {
                try deliver(packet, into: &outputs)
                releaseHeldDrops(into: &outputs)
            }
        } catch {
            flushPending(into: &outputs, failure: error)
            self.backend = nil
        }
    }
}

extension EncoderEngine {
    /// Releases the held drops whose earlier frames have all come back (call after every delivered packet).
    mutating func releaseHeldDrops(into outputs: inout [EncoderOutput]) {
        guard !heldDrops.isEmpty else { return }
        let oldestPending = pending.values.map(\.call).min() ?? .max
        while let first = heldDrops.first, first.call < oldestPending {
            outputs.append(first.output)
            heldDrops.removeFirst()
        }
    }

    /// Every frame still inside the encoder comes back dropped (or failed with `failure`), merged with the held drops
    /// in submission order.
    mutating func flushPending(into outputs: inout [EncoderOutput], failure: EncoderSessionError? = nil) {
        let remaining = pending.values.map { frame in
            (call: frame.call, output: failure.map { failed(frame, $0) } ?? dropped(frame, reason: .encoderDroppedFrame))
        } + heldDrops
        outputs += remaining.sorted { $0.call < $1.call }.map(\.output)
        pending.removeAll()
        heldDrops.removeAll()
    }
}
