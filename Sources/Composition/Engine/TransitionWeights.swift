import Timeline

/// The blend a transition makes at a given progress, as fixed-point weights for `PlaneKernels.blend`. Pure, so the
/// curves are tested as numbers; the formulas are ffmpeg's `xfade` (libavfilter/vf_xfade.c) written with p = the
/// share of the incoming picture (xfade's `progress` is 1 − p), so `xfade` is the test oracle.
enum TransitionWeights {
    /// - Parameters:
    ///   - progress: eased progress in [0, 1]: 0 all outgoing, 1 all incoming.
    ///   - black: the canvas's black per plane (Y′ 16, Cb 128, Cr 128 in limited range), for `fadeblack`.
    static func weights(_ kind: Timeline.Transition.Kind, progress: Double, black: [UInt8]) -> PlaneKernels.BlendWeights {
        let one = Double(PlaneKernels.weightOne)
        let p = min(max(progress, 0), 1)
        switch kind {
        case .dissolve:
            let a = UInt32((one * (1 - p)).rounded())
            return .init(a: a, b: PlaneKernels.weightOne - a, constants: [0, 0, 0])
        case .fadeblack:
            // xfade: mix(mix(A, black, s1), mix(black, B, s2), P) with P = 1 − p, s1 = smoothstep(0.8, 1, P),
            // s2 = smoothstep(0.2, 1, P) and mix(x, y, m) = x·m + y·(1 − m): linear in A, B and black.
            let outgoing = 1 - p
            let s1 = smoothstep(0.8, 1, outgoing), s2 = smoothstep(0.2, 1, outgoing)
            let a = UInt32((one * s1 * outgoing).rounded())
            let b = min(UInt32((one * (1 - s2) * (1 - outgoing)).rounded()), PlaneKernels.weightOne - a)
            let rest = PlaneKernels.weightOne - a - b
            return .init(a: a, b: b, constants: black.map { UInt32($0) * rest })
        case .wipe, .slide, .push:
            // Not blends by weights: the engine gives these to `LumaMap.wipe` and `PlaneKernels.slide`.
            preconditionFailure("\(kind) is not a weighted blend")
        }
    }

    /// GLSL's smoothstep, as xfade defines it: 0 below `edge0`, 1 above `edge1`, t²(3 − 2t) between.
    static func smoothstep(_ edge0: Double, _ edge1: Double, _ x: Double) -> Double {
        let t = min(max((x - edge0) / (edge1 - edge0), 0), 1)
        return t * t * (3 - 2 * t)
    }
}
