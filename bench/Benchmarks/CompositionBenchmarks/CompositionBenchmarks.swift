import Benchmark
import Composition
import MediaCore

// The luma-map wipe kernel on 720p I420 frames (1280×720: 1.38 MB per frame, three planes): one iteration is one
// output frame. A plain loop over unsafe pointers is only worth it if the compiler vectorises it (a scalar loop here
// is 4–7× slower: BENCHMARKS.md), so a change that breaks vectorisation shows as a jump in these medians; a memcpy of
// one frame's bytes is the reference. The ratio against ffmpeg's `xfade=wipeleft` on one core is taken by
// bench/scripts/wipe_vs_xfade.py from this run's medians, and BENCHMARKS.md records both.
enum Frames {
    static let width = 1280, height = 720

    static func picture(seed: Int) -> PixelBuffer {
        var buffer = PixelBuffer(format: .i420, width: width, height: height)
        for plane in 0..<3 {
            for index in buffer.planes[plane].bytes.indices {
                buffer.planes[plane].bytes[index] = UInt8(truncatingIfNeeded: index &* 37 &+ seed &* 101 &+ plane &* 53)
            }
        }
        return buffer
    }

    static let outgoing = picture(seed: 1)
    static let incoming = picture(seed: 2)
    static let linear = LumaMap(shape: .linear(.left), width: width, height: height)
    static let iris = LumaMap(shape: .iris(.open), width: width, height: height)
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        maxDuration: .seconds(3)
    )
    let frameBytes = Frames.width * Frames.height * 3 / 2

    Benchmark(thresholdSafe("frame copy, memcpy (one 720p I420 frame)"), configuration: configuration) { benchmark in
        let source = Frames.outgoing.planes.flatMap(\.bytes)
        var output = [UInt8](repeating: 0, count: frameBytes)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            output.withUnsafeMutableBytes { out in source.withUnsafeBytes { out.copyMemory(from: $0) } }
            blackHole(output[7])
        }
    }

    for (title, map, softness) in [("wipe, linear, hard edge (one 720p frame)", Frames.linear, 0.0),
                                    ("wipe, iris, softness 0.1 (one 720p frame)", Frames.iris, 0.1)] {
        Benchmark(thresholdSafe(title), configuration: configuration) { benchmark in
            var output = PixelBuffer(format: .i420, width: Frames.width, height: Frames.height)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                try map.wipe(Frames.outgoing, Frames.incoming, into: &output, progress: 0.5, softness: softness)
                blackHole(output.planes[0].bytes[7])
            }
        }
    }

    // Made once per timeline, when the transition first shows: what that frame pays on top of its wipe.
    for (title, shape) in [("map, iris (made once, 720p)", Timeline.Transition.Wipe.Shape.iris(.open)),
                           ("map, star (made once, 720p)", .star(.open))] {
        Benchmark(thresholdSafe(title), configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(LumaMap(shape: shape, width: Frames.width, height: Frames.height).luma[7])
            }
        }
    }
}

/// Benchmark names with underscores for spaces (see BitstreamBenchmarks: package-benchmark's thresholds issue).
func thresholdSafe(_ title: String) -> String {
    String(title.map { $0 == " " || $0 == "/" ? "_" : $0 })
}
