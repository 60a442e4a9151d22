import MediaCore
import Timeline

/// The engine's readers are opened off the frame thread. A reader is asked for when its window opens (pre-rolled
/// 1 s ahead of its item, `CompositionPlan.readerWindows`; an overlay's likewise), opened and primed — its first
/// frame decoded — on a thread of its own (`PendingOpen`), and adopted by the first frame that finds it open. The
/// frame thread never opens a file. When a frame needs a reader that is still opening (a disk slower than the
/// pre-roll, an edit or a seek that needs a new clip at once):
/// - live, the frame is late: it is not composed, the caller's buffer is left as it is (the previous frame repeats
///   for a caller that passes the same buffer every frame, as `rtenc stream` does; a buffer of another size
///   becomes black), the hook is not called, and `Statistics.lateFrames` counts it — never a wait;
/// - offline (`render`), the frame waits for the reader: the output is the same whatever the machine's speed.
extension Engine {
    /// Starts opening the reader of a sequence item (a clip or a still) unless it is open or on its way.
    func requestReader(_ key: ReaderKey) {
        guard readers[key] == nil, openingReaders[key] == nil else { return }
        let item = plan.timeline.items[key.item]
        guard let source = item.source else { return }
        let (path, timeline, matrix, pool) = (resolve(source), plan.timeline, matrix, pool)
        let first = plan.layer(key.item, at: plan.spans[key.item].start).source
        let pending = PendingOpen<ItemReader>()
        start(pending) { () throws(CompositionError) in
            let reader = try ItemReader(item: key.item, path: path, timeline: timeline, matrix: matrix, pool: pool)
            // Pre-roll: decode up to the first frame shown, so the cut finds it ready.
            _ = try reader.frame(at: first)
            return reader
        }
        openingReaders[key] = pending
        statistics.readersOpened += 1
        countSequenceReaders()
    }

    /// Starts opening an overlay's readers (picture, mask) and reading its corner track file, unless open or on
    /// their way.
    func requestOverlay(_ key: ReaderKey) {
        guard overlayLayers[key] == nil, openingOverlays[key] == nil else { return }
        let overlay = plan.timeline.overlays[key.item]
        let (plan, matrix, pool, directory) = (plan, matrix, pool, baseDirectory)
        let known = cornerKeys[key.item]
        let pending = PendingOpen<OpenedOverlay>()
        start(pending) { () throws(CompositionError) in
            let resolve = { Engine.resolve($0, in: directory) }
            var keys = known
            if case let .cornerPin(.file(name), _) = overlay.geometry, keys == nil {
                keys = try CornerTrackFile.read(resolve(name), name: name, jsonPath: "$.overlays[\(key.item)].corner_pin")
            } else if case let .cornerPin(.keys(inline), _) = overlay.geometry {
                keys = inline
            }
            let layer = try OverlayLayer(index: key.item, plan: plan, matrix: matrix, resolve: resolve, keys: keys,
                                         pool: pool)
            return OpenedOverlay(layer: layer, keys: keys)
        }
        let count = overlay.mask == nil ? 1 : 2
        openingOverlays[key] = (pending, count)
        statistics.overlayReadersOpened += count
        statistics.openOverlayReaders += count
        statistics.maximumOpenOverlayReaders = max(statistics.maximumOpenOverlayReaders, statistics.openOverlayReaders)
    }

    /// Runs `open` on a thread of its own, after the test hook (`beforeOpen`); on the frame thread only when the
    /// system starts no thread (counted: `readersOpenedOnFrame`).
    private func start<Value>(_ pending: PendingOpen<Value>,
                              _ open: @escaping @Sendable () throws(CompositionError) -> Value) {
        let hook = beforeOpen
        let job: @Sendable () -> Void = {
            hook?()
            pending.finish(Result(catching: open))
        }
        if !ReaderOpener.start(job) {
            statistics.readersOpenedOnFrame += 1
            job()
        }
    }

    /// Adopts the readers that have finished opening; throws the first that could not be opened (as opening it on
    /// the frame thread did: a missing file stops the source a pre-roll before its item shows).
    func adoptOpenedReaders() throws(CompositionError) {
        for (key, pending) in openingReaders {
            guard let result = pending.take() else { continue }
            openingReaders[key] = nil
            try adopt(result.get(), as: key)
        }
        for (key, opening) in openingOverlays {
            guard let result = opening.pending.take() else { continue }
            openingOverlays[key] = nil
            try adopt(result.get(), as: key, readers: opening.readers)
        }
    }

    private func adopt(_ reader: ItemReader, as key: ReaderKey) {
        reader.item = key.item // an edit may have moved the item while it opened
        readers[key] = reader
        countSequenceReaders()
    }

    private func adopt(_ opened: OpenedOverlay, as key: ReaderKey, readers count: Int) {
        opened.layer.renumber(key.item, span: plan.overlaySpans[key.item])
        overlayLayers[key] = opened.layer
        if let keys = opened.keys, case .cornerPin(.file, _) = plan.timeline.overlays[key.item].geometry {
            cornerKeys[key.item] = keys
        }
    }

    /// Whether every reader this frame draws from is open; asks for those neither open nor opening (after a seek,
    /// or an edit that put a new clip under the playhead).
    func readersReady(for instruction: CompositionPlan.FrameInstruction) -> Bool {
        var ready = true
        for key in sequenceKeys(instruction) where readers[key] == nil {
            requestReader(key)
            ready = false
        }
        for key in overlayKeys(instruction) where overlayLayers[key] == nil {
            requestOverlay(key)
            ready = false
        }
        return ready
    }

    /// Before the first frame (and after a seek, which is not a frame either): asks for the readers the next frame
    /// draws from and waits for them, so playing starts with a picture rather than late frames.
    func openReadersForNextFrame() throws(CompositionError) {
        if let endFrame, frameIndex >= endFrame { return }
        guard let instruction = plan.instruction(forFrame: frameIndex - planOffset) else { return }
        _ = readersReady(for: instruction)
        try waitForReaders(instruction)
    }

    /// Offline: waits for every reader this frame draws from.
    func waitForReaders(_ instruction: CompositionPlan.FrameInstruction) throws(CompositionError) {
        for key in sequenceKeys(instruction) where readers[key] == nil {
            guard let pending = openingReaders.removeValue(forKey: key) else { continue }
            try adopt(pending.wait().get(), as: key)
        }
        for key in overlayKeys(instruction) where overlayLayers[key] == nil {
            guard let opening = openingOverlays.removeValue(forKey: key) else { continue }
            try adopt(opening.pending.wait().get(), as: key, readers: opening.readers)
        }
    }

    /// The sequence readers a frame shows (its item, and the incoming one of a transition), by key.
    private func sequenceKeys(_ instruction: CompositionPlan.FrameInstruction) -> [ReaderKey] {
        [instruction.base, instruction.incoming].compactMap { layer in
            guard let layer, plan.timeline.items[layer.item].source != nil else { return nil }
            return ReaderKey(pass: instruction.pass, item: layer.item)
        }
    }

    /// The overlays a frame draws, by key.
    func overlayKeys(_ instruction: CompositionPlan.FrameInstruction) -> [ReaderKey] {
        plan.overlaySpans.filter { $0.start <= instruction.passTime && instruction.passTime < $0.end }
            .map { ReaderKey(pass: instruction.pass, item: $0.overlay) }
    }

    /// Gives up on a sequence reader still opening (its window closed, or an edit or a seek left it out).
    func abandonReader(_ key: ReaderKey) {
        guard let pending = openingReaders.removeValue(forKey: key) else { return }
        pending.abandon()
        countSequenceReaders()
    }

    /// Gives up on an overlay still opening.
    func abandonOverlay(_ key: ReaderKey) {
        guard let opening = openingOverlays.removeValue(forKey: key) else { return }
        opening.pending.abandon()
        statistics.openOverlayReaders -= opening.readers
    }

    /// Sequence decoders open or opening now, and the most at one time.
    func countSequenceReaders() {
        statistics.openReaders = readers.count + openingReaders.count
        statistics.maximumOpenReaders = max(statistics.maximumOpenReaders, statistics.openReaders)
    }
}

/// An overlay opened on the opener's thread, with the corner keys it read from a track file (kept by the engine,
/// so a looping overlay reads its file once).
final class OpenedOverlay: OpenedReader {
    let layer: OverlayLayer
    let keys: [CornerKey]?

    init(layer: OverlayLayer, keys: [CornerKey]?) {
        self.layer = layer
        self.keys = keys
    }

    func release() { layer.release() }
}
