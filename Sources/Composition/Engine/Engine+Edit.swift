import MediaCore
import Synchronization
import Timeline

/// Editing a timeline while it plays (seed 000's "reorder clips on the fly", which AVFoundation could only do by
/// rebuilding the player): the new plan takes over at a frame boundary, the playhead stays where it was on the
/// timeline (the same time into the pass; past the new end a loop starts over and a timeline that does not loop
/// ends), output timestamps keep counting, and the open readers of items and overlays the edit leaves alone are kept
/// — renumbered when the edit moved them — so only what the edit touched is opened again.
extension CompositionSource {
    /// Replaces the timeline from the next frame on. The canvas (size and frame rate: what the encoder was opened
    /// with) cannot change; a timeline that does not plan is refused and the playing one continues unchanged.
    public mutating func update(to timeline: Timeline) throws(CompositionError) {
        let plan = try Self.plan(timeline, replacing: self.plan, passes: engine.passes)
        if live { try LiveReverseBudget.check(plan, resolve: engine.resolve) }
        engine.apply(plan)
    }

    /// Edits the timeline being played in place: `update(to:)` with `change` applied to it.
    public mutating func edit(_ change: (inout Timeline) throws(CompositionError) -> Void) throws(CompositionError) {
        var timeline = plan.timeline
        try change(&timeline)
        try update(to: timeline)
    }

    /// A handle another thread edits this source through while the owning thread plays it: each edit is planned
    /// (and refused) on the editing thread, and the playing thread takes the newest at its next frame.
    public func makeEditor() -> TimelineEditor {
        TimelineEditor(engine: engine, live: live)
    }

    /// The plan of an edit: checked against the playing canvas, looping when the source plays several passes.
    static func plan(_ timeline: Timeline, replacing current: CompositionPlan,
                     passes: Int?) throws(CompositionError) -> CompositionPlan {
        let canvas = current.timeline.canvas
        guard timeline.canvas.width == canvas.width, timeline.canvas.height == canvas.height,
              timeline.canvas.frameRate == canvas.frameRate else {
            throw CompositionError(
                code: .unsupported,
                reason: "an edit cannot change the canvas while it plays (\(canvas.width)x\(canvas.height) at "
                    + "\(canvas.frameRate) fps, the encoder's size and rate); start a new source for "
                    + "\(timeline.canvas.width)x\(timeline.canvas.height) at \(timeline.canvas.frameRate) fps",
                path: "$.canvas")
        }
        var timeline = timeline
        if let passes, passes > 1 { timeline.loop = true }
        do {
            return try CompositionPlan(timeline)
        } catch {
            throw CompositionError(error)
        }
    }
}

/// Edits for a playing `CompositionSource` from another thread (`CompositionSource.makeEditor()`). `submit` plans
/// the timeline on the caller's thread and throws what the planner refuses; the playing thread applies the newest
/// submitted edit when its next frame starts (an edit submitted twice before a frame: the second wins).
public final class TimelineEditor: Sendable {
    private let engine: EngineReference
    private let live: Bool

    fileprivate init(engine: Engine, live: Bool) {
        self.engine = EngineReference(engine)
        self.live = live
    }

    /// Plans `timeline` and queues it for the next frame. The canvas must stay the playing one's, and every file
    /// the edit names that the playing timeline does not is opened once here, on the caller's thread
    /// (`SourceCheck`): a missing or undecodable one refuses the edit, and the playing timeline goes on.
    public func submit(_ timeline: Timeline) throws(CompositionError) {
        let (current, passes, resolve) = engine.snapshot()
        let plan = try CompositionSource.plan(timeline, replacing: current, passes: passes)
        if live { try LiveReverseBudget.check(plan, resolve: resolve) }
        try SourceCheck.check(timeline, playing: current.timeline, resolve: resolve)
        engine.mailbox.post(plan)
    }
}

/// The engine as seen from an editing thread: only what never changes after init (its mailbox, its passes and
/// directory) and the plan last submitted or played, read under the mailbox's lock.
private struct EngineReference: @unchecked Sendable {
    // @unchecked: an editor touches only the engine's `let` members and its mailbox, whose state is behind a Mutex.
    private let engine: Engine

    init(_ engine: Engine) { self.engine = engine }

    var mailbox: EditMailbox { engine.mailbox }

    func snapshot() -> (plan: CompositionPlan, passes: Int?, resolve: @Sendable (String) -> String) {
        let directory = engine.baseDirectory
        return (engine.mailbox.latestPlan, engine.passes, { Engine.resolve($0, in: directory) })
    }
}

/// The plan an editor submitted and the playing thread has not taken yet, and the newest plan known (what the next
/// submitted edit replaces, for its canvas check).
final class EditMailbox: Sendable {
    private let state: Mutex<(pending: CompositionPlan?, latest: CompositionPlan?)> = Mutex((nil, nil))

    func post(_ plan: CompositionPlan) {
        state.withLock { $0 = (plan, plan) }
    }

    /// The pending plan, if any, now the playing thread's.
    func take() -> CompositionPlan? {
        state.withLock { state in
            defer { state.pending = nil }
            return state.pending
        }
    }

    func played(_ plan: CompositionPlan) {
        state.withLock { $0.latest = plan }
    }

    var latestPlan: CompositionPlan {
        state.withLock { $0.latest }!
    }
}

extension Engine {
    /// Plays `newPlan` from the next frame: the playhead keeps its time into the pass, output frames keep counting,
    /// and readers of items and overlays the edit did not touch are kept (renumbered), the rest closed; the next
    /// frame opens what the new plan wants that is not open.
    func apply(_ newPlan: CompositionPlan) {
        let old = plan
        let position = old.instruction(forFrame: frameIndex - planOffset)
        let pass = position?.pass ?? (lastPass ?? 0)
        let passTime = position?.passTime ?? old.duration
        // The first frame of the new plan at or after the playhead (the next pass's first past the new end).
        let next = min(Int(clamping: (passTime * newPlan.frameRate).ceiling), newPlan.frameCount)
        planOffset = frameIndex - next
        let remaining = passes.map { max(0, $0 - pass) }
        endFrame = switch remaining {
        case let count?: planOffset + count * newPlan.frameCount
        case nil: newPlan.timeline.loop ? nil : planOffset + newPlan.frameCount
        }

        let items = Self.match(old.timeline.items, newPlan.timeline.items) {
            $0.readsLike($1, oldCanvas: old.timeline.canvas, newCanvas: newPlan.timeline.canvas)
        }
        var kept: [ReaderKey: ItemReader] = [:]
        for (key, reader) in readers {
            if let item = items[key.item] {
                reader.item = item
                kept[ReaderKey(pass: key.pass - pass, item: item)] = reader
            } else {
                retire(key)
            }
        }
        readers = kept
        var opening: [ReaderKey: PendingOpen<ItemReader>] = [:]
        for (key, pending) in openingReaders {
            if let item = items[key.item] {
                opening[ReaderKey(pass: key.pass - pass, item: item)] = pending // renumbered when adopted
            } else {
                pending.abandon()
            }
        }
        openingReaders = opening
        countSequenceReaders()

        let overlays = Self.match(old.timeline.overlays, newPlan.timeline.overlays) { $0 == $1 }
        var keptLayers: [ReaderKey: OverlayLayer] = [:]
        for (key, layer) in overlayLayers {
            if let index = overlays[key.item] {
                layer.renumber(index, span: newPlan.overlaySpans[index])
                keptLayers[ReaderKey(pass: key.pass - pass, item: index)] = layer
            } else {
                retireOverlay(key)
            }
        }
        overlayLayers = keptLayers
        var openingLayers: [ReaderKey: (pending: PendingOpen<OpenedOverlay>, readers: Int)] = [:]
        for (key, opening) in openingOverlays {
            if let index = overlays[key.item] {
                openingLayers[ReaderKey(pass: key.pass - pass, item: index)] = opening
            } else {
                opening.pending.abandon()
                statistics.openOverlayReaders -= opening.readers
            }
        }
        openingOverlays = openingLayers
        cornerKeys = Dictionary(uniqueKeysWithValues: cornerKeys.compactMap { index, keys in
            overlays[index].map { ($0, keys) }
        })
        colourFrames.removeAll()

        plan = newPlan
        passesAhead = newPlan.timeline.loop ? Int((CompositionPlan.preroll / newPlan.duration).ceiling) + 1 : 0
        lastPass = endFrame.flatMap { $0 > planOffset ? newPlan.instruction(forFrame: $0 - 1 - planOffset)?.pass : 0 }
        mailbox.played(newPlan)
        prepareWipeMaps()
    }

    /// Old index → new index for the elements an edit kept: each new element takes the old one at its own index when
    /// that one is alike, else the first alike old one not taken yet (an element used twice matches in order).
    static func match<Element>(_ old: [Element], _ new: [Element],
                               alike: (Element, Element) -> Bool) -> [Int: Int] {
        var taken = Set<Int>(), matches: [Int: Int] = [:]
        for (index, element) in new.enumerated() {
            let same = index < old.count && !taken.contains(index) && alike(old[index], element) ? index : nil
            guard let from = same ?? old.indices.first(where: { !taken.contains($0) && alike(old[$0], element) })
            else { continue }
            taken.insert(from)
            matches[from] = index
        }
        return matches
    }
}

extension Timeline.Item {
    /// True when one reader serves both items: the same file, decoded the same way and placed alike (fit, flip,
    /// rotation, letterbox colour on the same canvas). Times (`in`, duration, speed, reverse) and the transition
    /// only change which frames are asked for, which a reader seeks to.
    func readsLike(_ other: Timeline.Item, oldCanvas: Timeline.Canvas, newCanvas: Timeline.Canvas) -> Bool {
        let kinds: Bool = switch (content, other.content) {
        case let (.clip(a, _), .clip(b, _)), let (.still(a), .still(b)): a == b
        default: false
        }
        return kinds && fit == other.fit && flip == other.flip && rotation == other.rotation
            && (letterbox ?? oldCanvas.background) == (other.letterbox ?? newCanvas.background)
            && oldCanvas.width == newCanvas.width && oldCanvas.height == newCanvas.height
    }
}
