import MediaCore
import Timeline

/// The engine's overlays: their readers opened and closed by the plan's windows (pre-rolled like the sequence's),
/// and each overlay drawn in z order over the composed sequence frame.
extension Engine {
    /// Asks for the overlays whose reader windows contain this frame's time (opened on their own threads,
    /// `Engine+Opening`) and closes the others.
    func updateOverlayReaders(_ instruction: CompositionPlan.FrameInstruction) throws(CompositionError) {
        guard !plan.overlaySpans.isEmpty else { return }
        let wanted = keys(at: instruction, windows: plan.overlaySpans.map { ($0.overlay, $0.open, $0.close) })
        for key in overlayLayers.keys where !wanted.contains(key) {
            retireOverlay(key)
        }
        for key in openingOverlays.keys where !wanted.contains(key) {
            abandonOverlay(key)
        }
        for key in wanted.sorted(by: { ($0.pass, $0.item) < ($1.pass, $1.item) }) {
            requestOverlay(key)
        }
    }

    /// The (pass, index) of every reader window, [open, close) in pass time, that contains this frame's time, in
    /// this pass and the ones whose windows open during it (pre-roll across a loop point), up to the last pass.
    func keys(at instruction: CompositionPlan.FrameInstruction,
              windows: [(index: Int, open: Fraction, close: Fraction)]) -> Set<ReaderKey> {
        var wanted = Set<ReaderKey>()
        for pass in instruction.pass...min(instruction.pass + passesAhead, lastPass ?? .max) {
            let offset = Fraction(Int128(pass)) * plan.duration
            for window in windows where offset + window.open <= instruction.time
                && instruction.time < offset + window.close {
                wanted.insert(ReaderKey(pass: pass, item: window.index))
            }
        }
        return wanted
    }

    /// Draws the overlays showing at this frame, first to last (later ones above).
    func drawOverlays(_ instruction: CompositionPlan.FrameInstruction,
                      onto buffer: inout PixelBuffer) throws(CompositionError) {
        for span in plan.overlaySpans where span.start <= instruction.passTime && instruction.passTime < span.end {
            let key = ReaderKey(pass: instruction.pass, item: span.overlay)
            // `readersReady`/`waitForReaders` made sure it is open.
            guard let layer = overlayLayers[key] else {
                throw CompositionError(code: .source, reason: "the readers of overlay \(span.overlay) are not open",
                                       path: "$.overlays[\(span.overlay)].source")
            }
            // The overlay's own frame count: output frames since its first one (the first grid point ≥ start).
            let passFrame = (instruction.passTime * plan.frameRate).floor
            let firstFrame = (span.start * plan.frameRate).ceiling
            try layer.draw(onto: &buffer, passTime: instruction.passTime,
                                         localFrame: Int(passFrame - firstFrame))
        }
    }

    func retireOverlay(_ key: ReaderKey) {
        guard let layer = overlayLayers.removeValue(forKey: key) else { return }
        statistics.framesDecoded += layer.framesDecoded
        statistics.openOverlayReaders -= layer.mask == nil ? 1 : 2
        layer.release()
    }
}
