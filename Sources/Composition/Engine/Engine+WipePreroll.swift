import Timeline

/// Wipe maps pre-rolled like readers: a map the cache does not hold is made on another thread once its transition
/// is within `CompositionPlan.preroll` of the playhead (in this pass, or the next one's when looping), so the frame
/// that first shows it finds it made. The first few are made before the first frame (`prepareWipeMaps`).
extension Engine {
    func prerollWipeMaps(_ instruction: CompositionPlan.FrameInstruction) {
        let horizon = instruction.passTime + CompositionPlan.preroll
        let canvas = plan.timeline.canvas
        for span in plan.transitions {
            guard let wipe = span.transition.wipe else { continue }
            // Ahead within the pre-roll, or (looping) at the start of the next pass.
            let ahead = span.start >= instruction.passTime && span.start <= horizon
            let wrapped = plan.timeline.loop && span.start + plan.duration <= horizon
            guard ahead || wrapped,
                  !maps.isReadyOrPending(wipe, width: canvas.width, height: canvas.height) else { continue }
            maps.prepare(wipe, width: canvas.width, height: canvas.height, resolve: resolve)
        }
    }
}
