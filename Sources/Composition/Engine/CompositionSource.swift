import MediaCore
import MediaIO
import Timeline

/// A `Timeline` as a `FrameSource`: output frame k at k / frameRate, composed from the items the plan says are
/// showing, in I420 at the canvas size (BT.709 limited range from 720 lines up, BT.601 below).
///
/// Pull model, as seed 000's sequencer: each `nextFrame` resolves the frame's items and transition progress through
/// `CompositionPlan.instruction(forFrame:)` and asks each item's reader for its last frame at or before the mapped
/// time. Readers open and close by the plan's windows (pre-rolled ahead, at most three sequence readers), each
/// opened and primed on a thread of its own (`Engine+Opening`), so a cut or a loop point finds the next clip
/// already decoded and no frame opens a file. Offline it is deterministic: the same timeline gives the same frames
/// whatever the machine's speed (a frame waits for a reader still opening). Live (`live: true`), a frame never
/// waits: one whose reader is not open yet is late (`Statistics.lateFrames`) and leaves the caller's buffer as it
/// was, so a caller that reuses its buffer repeats the previous frame.
public struct CompositionSource: SeekableFrameSource {
    /// The plan being played: the one given, or the last edit's (`update(to:)`, `TimelineEditor`).
    public var plan: CompositionPlan { engine.plan }
    public var format: PixelFormat { .i420 }
    public var width: Int { plan.timeline.canvas.width }
    public var height: Int { plan.timeline.canvas.height }
    public var frameRate: Rational {
        Rational(Int(plan.frameRate.numerator), Int(plan.frameRate.denominator))
    }
    /// The canvas's matrix (limited range).
    public let matrix: YCbCrMatrix

    let engine: Engine
    /// Real-time playback: edits are checked against `LiveReverseBudget` too.
    let live: Bool

    /// What the engine has done so far.
    public struct Statistics: Sendable, Hashable {
        public var framesProduced = 0
        public var readersOpened = 0
        public var openReaders = 0
        /// The most sequence readers open at one time (the plan keeps it at most 3).
        public var maximumOpenReaders = 0
        /// Frames decoded by every reader so far (more than produced at speeds above 1, fewer below).
        public var framesDecoded = 0
        /// The most frames a reverse clip's reader has held at once (one chunk: bounded memory).
        public var largestReverseChunk = 0
        /// Frame buffers allocated by the engine's readers; closed readers' buffers are reused.
        public var buffersAllocated = 0
        /// Overlay readers (pictures and masks) opened so far, open now, and the most open at one time (the plan's
        /// `maximumOverlayReaders` bounds it).
        public var overlayReadersOpened = 0
        public var openOverlayReaders = 0
        public var maximumOpenOverlayReaders = 0
        /// Wipe maps made (once per distinct map and timeline, not per frame: `LumaMapCache`).
        public var wipeMapsMade = 0
        /// Live frames that were not composed because a reader they show was still opening on its thread: the
        /// caller's buffer was left as it was (the previous frame, for a caller that reuses its buffer). Offline, a
        /// frame waits for its readers instead, so this stays 0.
        public var lateFrames = 0
        /// Readers the frame thread had to open itself because the system started no thread for them (0 unless
        /// threads ran out): every other open happens on a thread of its own, ahead of its item.
        public var readersOpenedOnFrame = 0
        /// Wipe maps a frame had to make itself, on its own time: neither kept nor pre-rolled on another thread
        /// (a looping timeline with more shapes than the cache keeps has them pre-rolled before each pass).
        public var wipeMapsMadeOnFrame = 0
    }

    public var statistics: Statistics {
        var statistics = engine.statistics
        statistics.framesDecoded += engine.readers.values.reduce(0) { $0 + $1.framesDecoded }
        statistics.framesDecoded += engine.overlayLayers.values.reduce(0) { $0 + $1.framesDecoded }
        statistics.buffersAllocated = engine.pool.allocated
        statistics.wipeMapsMade = engine.maps.made
        statistics.wipeMapsMadeOnFrame = engine.maps.madeOnFrame
        statistics.largestReverseChunk = engine.readers.values.reduce(statistics.largestReverseChunk) {
            max($0, $1.largestChunk)
        }
        return statistics
    }

    /// - Parameters:
    ///   - baseDirectory: where relative `source` paths are found (the timeline file's directory); nil: as given.
    ///   - passes: how many times to play the timeline; nil plays it once, or forever when it loops.
    ///   - hook: called with every composed frame before it is returned (`PostCompositionHook`).
    ///   - live: the frames are for real-time playback: what cannot keep up is refused now, with how to fix it
    ///     (`LiveReverseBudget`: a reverse clip whose keyframes are too far apart), rather than late frames later.
    public init(plan: CompositionPlan, baseDirectory: String? = nil, passes: Int? = nil,
                hook: (any PostCompositionHook)? = nil, live: Bool = false) throws(CompositionError) {
        var plan = plan
        if let passes, passes > 1, !plan.timeline.loop {
            // Repeating a timeline is looping it: the windows then pre-roll the first items before each pass ends.
            var timeline = plan.timeline
            timeline.loop = true
            do {
                plan = try CompositionPlan(timeline)
            } catch {
                throw CompositionError(error)
            }
        }
        matrix = YCbCrMatrix.forCanvas(height: plan.timeline.canvas.height)
        self.live = live
        let lastFrame: Int? = switch passes {
        case let count?: count * plan.frameCount
        case nil: plan.timeline.loop ? nil : plan.frameCount
        }
        engine = Engine(plan: plan, matrix: matrix, baseDirectory: baseDirectory, endFrame: lastFrame, passes: passes,
                        waitsForReaders: !live)
        engine.hook = hook
        if live { try LiveReverseBudget.check(plan, resolve: engine.resolve) }
        try engine.openReadersForNextFrame()
    }

    public mutating func nextFrame(into buffer: inout PixelBuffer) throws(CompositionError) -> MediaTime? {
        try engine.nextFrame(into: &buffer)
    }

    /// Positions the output at the frame shown at `time` (the grid frame whose interval contains it; the first
    /// frame for a time before 0). Every reader is closed and the ones that frame shows are opened and pre-rolled
    /// before this returns (on the opener's threads, waited for), so a seek costs one reader open per visible item,
    /// never a decode from 0, and the next frame is not late.
    public mutating func seek(to time: MediaTime) throws(CompositionError) {
        guard time.isValid else {
            throw CompositionError(code: .invalidTimeline, reason: "cannot seek to \(time): not a valid time")
        }
        let frame = Fraction(Int128(time.value), Int128(time.timescale)) * plan.frameRate
        engine.seek(toFrame: Int(clamping: max(0, frame.floor)))
        try engine.openReadersForNextFrame()
    }
}

/// The mutable part of a `CompositionSource`: the reader pool, the colour frames and the frame counter.
final class Engine {
    /// The plan being played; an edit replaces it (`apply`).
    var plan: CompositionPlan
    let matrix: YCbCrMatrix
    let baseDirectory: String?
    /// The output frame to stop before (nil: never).
    var endFrame: Int?
    /// The passes asked for (nil: once, or forever when the timeline loops).
    let passes: Int?
    /// The next output frame; output frame k is plan frame k − `planOffset` (0 until an edit moves the playhead
    /// onto the new plan).
    var frameIndex = 0
    var planOffset = 0
    /// Edits submitted through a `TimelineEditor`, applied at the start of the next frame.
    let mailbox = EditMailbox()
    /// Offline: a frame whose reader is still opening waits for it; live, it is late (`Engine+Opening`).
    let waitsForReaders: Bool
    /// Readers opening on their own threads, by (pass, item) and (pass, overlay index).
    var openingReaders: [ReaderKey: PendingOpen<ItemReader>] = [:]
    var openingOverlays: [ReaderKey: (pending: PendingOpen<OpenedOverlay>, readers: Int)] = [:]
    /// A test hook: runs on the opening thread before each open (a slow disk).
    var beforeOpen: (@Sendable () -> Void)?
    var statistics = CompositionSource.Statistics()
    /// Open readers by (pass, item).
    var readers: [ReaderKey: ItemReader] = [:]
    /// Open overlays by (pass, overlay index).
    var overlayLayers: [ReaderKey: OverlayLayer] = [:]
    /// Corner keys of track files, read once per overlay.
    var cornerKeys: [Int: [CornerKey]] = [:]
    var hook: (any PostCompositionHook)?
    let pool = FramePool()
    let maps = LumaMapCache()
    /// Canvas-sized frames of colour items, made once.
    var colourFrames: [Int: PixelBuffer] = [:]
    let black: [UInt8]
    /// Windows of later passes can open during this one when the preroll is longer than a pass.
    var passesAhead: Int
    /// The last pass played, when the number of passes is bounded: no reader is pre-rolled for the one after.
    var lastPass: Int?

    struct ReaderKey: Hashable {
        let pass: Int
        let item: Int
    }

    init(plan: CompositionPlan, matrix: YCbCrMatrix, baseDirectory: String?, endFrame: Int?, passes: Int?,
         waitsForReaders: Bool) {
        self.plan = plan
        self.waitsForReaders = waitsForReaders
        self.matrix = matrix
        self.baseDirectory = baseDirectory
        self.endFrame = endFrame
        self.passes = passes
        let (y, cb, cr) = RGBColor.black.ycbcr(matrix)
        black = [y, cb, cr]
        passesAhead = plan.timeline.loop ? Int((CompositionPlan.preroll / plan.duration).ceiling) + 1 : 0
        lastPass = endFrame.flatMap { $0 > 0 ? plan.instruction(forFrame: $0 - 1)?.pass : 0 }
        mailbox.played(plan)
        prepareWipeMaps()
    }

    /// Makes the first wipe maps now, before the first frame: a map costs tens of milliseconds at 720p (a star
    /// ~0.1 s), which the frame that first shows the wipe would otherwise pay — late, when streaming. A map that
    /// cannot be made (an image that does not open) is left to that frame, which reports it with its JSON path.
    func prepareWipeMaps() {
        let canvas = plan.timeline.canvas
        var seen: [Timeline.Transition.Wipe] = []
        for span in plan.transitions {
            guard let wipe = span.transition.wipe,
                  !seen.contains(where: { $0.shape == wipe.shape && $0.invert == wipe.invert }) else { continue }
            seen.append(wipe)
            guard seen.count <= LumaMapCache.capacity else { return }
            _ = try? maps.map(for: wipe, width: canvas.width, height: canvas.height, resolve: resolve,
                              jsonPath: "$.items[\(span.from)].transition", onFrame: false)
        }
    }

    func seek(toFrame index: Int) {
        for key in Array(readers.keys) { retire(key) }
        for key in Array(openingReaders.keys) { abandonReader(key) }
        for key in Array(overlayLayers.keys) { retireOverlay(key) }
        for key in Array(openingOverlays.keys) { abandonOverlay(key) }
        endFrame = endFrame.map { $0 - planOffset }
        frameIndex = index
        planOffset = 0
    }

    func nextFrame(into buffer: inout PixelBuffer) throws(CompositionError) -> MediaTime? {
        if let edit = mailbox.take() { apply(edit) }
        if let endFrame, frameIndex >= endFrame { return nil }
        guard let instruction = plan.instruction(forFrame: frameIndex - planOffset) else { return nil }
        try updateReaders(instruction)
        prerollWipeMaps(instruction)
        let canvas = plan.timeline.canvas
        // Rate and time: k / (num/den) s = k·den / num s, exactly: the output's frame k, which an edit never moves
        // back.
        let rate = plan.frameRate
        let time = MediaTime(value: Int64(frameIndex) * Int64(rate.denominator), timescale: Int64(rate.numerator))
        if !readersReady(for: instruction) {
            if waitsForReaders {
                try waitForReaders(instruction)
            } else {
                // Late: the previous frame stays in a reused buffer; a new one shows black rather than garbage.
                if !buffer.matches(format: .i420, width: canvas.width, height: canvas.height) {
                    PixelBuffer.prepareCanvas(&buffer, width: canvas.width, height: canvas.height)
                    PlaneKernels.fill(&buffer, with: black)
                }
                statistics.lateFrames += 1
                frameIndex += 1
                statistics.framesProduced += 1
                return time
            }
        }
        PixelBuffer.prepareCanvas(&buffer, width: canvas.width, height: canvas.height)
        let base = try frame(for: instruction.base, pass: instruction.pass)
        if let incoming = instruction.incoming, let transition = instruction.transition {
            let other = try frame(for: incoming, pass: instruction.pass)
            try transit(from: base, to: other, into: &buffer, transition, progress: instruction.progress,
                        item: instruction.base.item)
        } else {
            PlaneKernels.copy(base, into: &buffer)
        }
        try drawOverlays(instruction, onto: &buffer)
        try hook?.process(&buffer, index: frameIndex, time: time)
        frameIndex += 1
        statistics.framesProduced += 1
        return time
    }

    /// One frame of `transition` (out of item `item`) at its eased `progress`.
    private func transit(from outgoing: PixelBuffer, to incoming: PixelBuffer, into buffer: inout PixelBuffer,
                         _ transition: Timeline.Transition, progress: Double, item: Int) throws(CompositionError) {
        switch transition.kind {
        case .dissolve, .fadeblack:
            let weights = TransitionWeights.weights(transition.kind, progress: progress, black: black)
            PlaneKernels.blend(outgoing, incoming, into: &buffer, weights)
        case .wipe:
            let wipe = transition.wipe ?? Timeline.Transition.Wipe()
            let canvas = plan.timeline.canvas
            let map = try maps.map(for: wipe, width: canvas.width, height: canvas.height, resolve: resolve,
                                   jsonPath: "$.items[\(item)].transition")
            try map.wipe(outgoing, incoming, into: &buffer, progress: progress, softness: wipe.softness)
        case .slide, .push:
            PlaneKernels.slide(outgoing, incoming, into: &buffer, direction: transition.direction ?? .left,
                               progress: progress, push: transition.kind == .push)
        }
    }

    /// A timeline's path (a source, a wipe map) as a file path: relative ones next to the timeline.
    func resolve(_ path: String) -> String {
        Self.resolve(path, in: baseDirectory)
    }

    static func resolve(_ path: String, in directory: String?) -> String {
        guard let directory, !path.hasPrefix("/") else { return path }
        return directory + "/" + path
    }

    /// Asks for the readers whose windows contain this frame's time (opened on their own threads), closes the
    /// others, and adopts those that have finished opening.
    private func updateReaders(_ instruction: CompositionPlan.FrameInstruction) throws(CompositionError) {
        let wanted = keys(at: instruction, windows: plan.readerWindows.map { ($0.item, $0.open, $0.close) })
        for key in readers.keys where !wanted.contains(key) {
            retire(key)
        }
        for key in openingReaders.keys where !wanted.contains(key) {
            abandonReader(key)
        }
        for key in wanted {
            requestReader(key)
        }
        try updateOverlayReaders(instruction)
        try adoptOpenedReaders()
    }

    func retire(_ key: ReaderKey) {
        guard let reader = readers.removeValue(forKey: key) else { return }
        statistics.framesDecoded += reader.framesDecoded
        statistics.largestReverseChunk = max(statistics.largestReverseChunk, reader.largestChunk)
        reader.release()
        countSequenceReaders()
    }

    private func frame(for layer: CompositionPlan.Layer, pass: Int) throws(CompositionError) -> PixelBuffer {
        let item = plan.timeline.items[layer.item]
        if case let .color(color) = item.content {
            if let frame = colourFrames[layer.item] { return frame }
            let canvas = plan.timeline.canvas
            var frame = PixelBuffer(format: .i420, width: canvas.width, height: canvas.height)
            let (y, cb, cr) = color.ycbcr(matrix)
            PlaneKernels.fill(&frame, with: [y, cb, cr])
            colourFrames[layer.item] = frame
            return frame
        }
        // `readersReady`/`waitForReaders` made sure it is open.
        guard let reader = readers[ReaderKey(pass: pass, item: layer.item)] else {
            throw CompositionError(code: .source, reason: "the reader of item \(layer.item) is not open",
                                   path: "$.items[\(layer.item)].source")
        }
        return try reader.frame(at: layer.source)
    }
}

extension PixelBuffer {
    /// Replaces `buffer` by a canvas-sized I420 buffer unless it already is one (storage kept).
    static func prepareCanvas(_ buffer: inout PixelBuffer, width: Int, height: Int) {
        if !buffer.matches(format: .i420, width: width, height: height) {
            buffer = PixelBuffer(format: .i420, width: width, height: height)
        }
    }
}
