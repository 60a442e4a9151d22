// The overlay kernels at 720p through the public API, one JSON line per run: a colour sequence (no decoding) under
// one overlay (alpha overlay), a full-frame overlay through a full-frame mask (mask blend), or a corner pin over
// most of the frame (homography warp: corners moving every frame, or static ones — ffmpeg's `perspective eval=init`
// case, where it builds its map once). Media comes from bench/scripts/overlay_kernels.py, which times ffmpeg's
// overlay / maskedmerge / perspective on the same pictures in the same run.
//   CompositionProbe none|overlay|mask|warp|warp-static DIRECTORY FRAMES
//                                                                 (none: the same without the overlay, a baseline)
//   CompositionProbe timeline TIMELINE.json                       (live cost: every output frame of a timeline timed
//                                                                 alone, thread CPU and wall, percentiles; played in
//                                                                 real time, live, as `rtenc stream` plays it)
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

func wallSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Composes every frame of a timeline as the live engine does (one nextFrame per output frame on this thread, at its
/// due time, readers opened on their own threads a second ahead), each timed on its own: the composition's cost per
/// frame that `rtenc stream` leaves the encoder. Wall time counts what the machine's other work takes from us; CPU
/// time what the frame costs. Frames whose reader was not open in time are counted (`late_frames`).
func timeTimeline(_ path: String) -> Never {
    func percentile(_ sorted: [Double], _ share: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * share).rounded(.up)))]
    }
    do {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { fail("cannot open \(path)") }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65536)
        while case let count = chunk.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }), count > 0 {
            bytes += chunk[0..<count]
        }
        close(descriptor)
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let plan = try CompositionPlan(Timeline.parse(bytes))
        var source = try CompositionSource(plan: plan, baseDirectory: directory, live: true)
        var buffer = source.makeBuffer()
        var cpu: [Double] = [], wall: [Double] = []
        let start = wallSeconds(), interval = 1 / plan.frameRate.doubleValue
        while true {
            let due = start + Double(cpu.count) * interval
            if case let wait = due - wallSeconds(), wait > 0 { usleep(UInt32(wait * 1e6)) }
            let (startCPU, startWall) = (seconds(), wallSeconds())
            guard try source.nextFrame(into: &buffer) != nil else { break }
            cpu.append((seconds() - startCPU) * 1000)
            wall.append((wallSeconds() - startWall) * 1000)
        }
        guard !cpu.isEmpty else { fail("no frames") }
        let sortedCPU = cpu.sorted(), sortedWall = wall.sorted()
        func fields(_ name: String, _ sorted: [Double], _ all: [Double]) -> String {
            "\"\(name)_p50_ms\": \(percentile(sorted, 0.5)), \"\(name)_p99_ms\": \(percentile(sorted, 0.99)), "
                + "\"\(name)_max_ms\": \(sorted.last!), \"\(name)_mean_ms\": \(all.reduce(0, +) / Double(all.count))"
        }
        print("{\"mode\": \"timeline\", \"frames\": \(cpu.count), \(fields("cpu", sortedCPU, cpu)), "
              + "\(fields("wall", sortedWall, wall)), \"first_frame_wall_ms\": \(wall[0]), "
              + "\"late_frames\": \(source.statistics.lateFrames)}")
        exit(0)
    } catch {
        fail("\(error)")
    }
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "timeline" { timeTimeline(arguments[2]) }
guard arguments.count == 4 || arguments.count == 5, let frames = Int(arguments[3]), frames > 1 else {
    fail("usage: CompositionProbe none|overlay|mask|warp|warp-static DIRECTORY FRAMES [WIDTHxHEIGHT]", status: 2)
}
let mode = arguments[1], directory = arguments[2]
// 1280x720 by default; other sizes scale every position and corner (the script makes the pictures at that scale).
let size = arguments.count == 5 ? arguments[4].split(separator: "x").compactMap { Int($0) } : [1280, 720]
guard size.count == 2, size[0] >= 64, size[1] >= 64 else { fail("bad size \(arguments[4])", status: 2) }
let scale = Double(size[0]) / 1280
func scaled(_ values: [Double]) -> Quad { Quad(values.map { $0 * scale }) }
let canvas = Timeline.Canvas(width: size[0], height: size[1], frameRate: Fraction(30))
let seconds30 = Fraction(Int128(frames), 30)
let overlay: Timeline.Overlay? = switch mode {
case "none": // the baseline: the colour sequence copied into the output, no overlay
    nil
case "overlay":
    Timeline.Overlay(source: "sticker.nut", geometry: .rectangle(x: Int(320 * scale) & ~1, y: Int(120 * scale) & ~1,
                                                                 size: nil))
case "mask":
    Timeline.Overlay(source: "picture.nut", geometry: .rectangle(x: 0, y: 0, size: nil),
                     mask: .init(source: "mask.nut"))
case "warp": // tracked corners: they move every frame (linearly from key 0 to key 149)
    Timeline.Overlay(source: "picture.nut", geometry: .cornerPin(.keys([
        CornerKey(frame: 0, quad: scaled([40, 20, 1240, 60, 1200, 700, 80, 680])),
        CornerKey(frame: 149, quad: scaled([70, 35, 1255, 30, 1170, 690, 50, 700])),
    ]), size: nil))
case "warp-static": // static corners: the first key's quad on every frame (the picture is still sampled per frame)
    Timeline.Overlay(source: "picture.nut", geometry: .cornerPin(.keys([
        CornerKey(frame: 0, quad: scaled([40, 20, 1240, 60, 1200, 700, 80, 680])),
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
