// The overlay kernels at 720p through the public API, one JSON line per run: a colour sequence (no decoding) under
// one overlay (alpha overlay), a full-frame overlay through a full-frame mask (mask blend), or a corner pin over
// most of the frame (homography warp). Media comes from bench/scripts/overlay_kernels.py, which times ffmpeg's
// overlay / maskedmerge / perspective on the same pictures in the same run.
//   CompositionProbe none|overlay|mask|warp DIRECTORY FRAMES      (none: the same without the overlay, a baseline)
import Composition
import Glibc
import MediaCore

func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = Array("CompositionProbe: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(status)
}

/// This thread's CPU time (the engine runs on the calling thread): on a loaded machine wall time measures the
/// neighbours; ffmpeg's side is measured by its utime + stime the same way.
func seconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let frames = Int(arguments[3]), frames > 1 else {
    fail("usage: CompositionProbe none|overlay|mask|warp DIRECTORY FRAMES", status: 2)
}
let mode = arguments[1], directory = arguments[2]
let canvas = Timeline.Canvas(width: 1280, height: 720, frameRate: Fraction(30))
let seconds30 = Fraction(Int128(frames), 30)
let overlay: Timeline.Overlay? = switch mode {
case "none": // the baseline: the colour sequence copied into the output, no overlay
    nil
case "overlay":
    Timeline.Overlay(source: "sticker.nut", geometry: .rectangle(x: 320, y: 120, size: nil))
case "mask":
    Timeline.Overlay(source: "picture.nut", geometry: .rectangle(x: 0, y: 0, size: nil),
                     mask: .init(source: "mask.nut"))
case "warp": // tracked corners: they move every frame (linearly from key 0 to key 149)
    Timeline.Overlay(source: "picture.nut", geometry: .cornerPin(.keys([
        CornerKey(frame: 0, quad: Quad([40, 20, 1240, 60, 1200, 700, 80, 680])),
        CornerKey(frame: 149, quad: Quad([70, 35, 1255, 30, 1170, 690, 50, 700])),
    ]), size: nil))
default:
    fail("unknown mode \(mode)", status: 2)
}
let timeline = Timeline(canvas: canvas, items: [.init(content: .color(RGBColor(red: 40, green: 60, blue: 90)),
                                                      duration: seconds30)], overlays: overlay.map { [$0] } ?? [])
do {
    var source = try CompositionSource(plan: CompositionPlan(timeline), baseDirectory: directory)
    var buffer = source.makeBuffer()
    _ = try source.nextFrame(into: &buffer) // opens and converts the pictures once
    let start = seconds()
    var count = 0
    while try source.nextFrame(into: &buffer) != nil { count += 1 }
    let elapsed = seconds() - start
    print("{\"mode\": \"\(mode)\", \"frames\": \(count), \"ms_per_frame\": \(elapsed * 1000 / Double(count))}")
} catch {
    fail("\(error)")
}
