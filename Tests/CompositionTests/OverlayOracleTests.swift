import Foundation
import MediaCore
import MediaIO
import Testing
import TestSupport
@testable import Composition
@testable import Timeline

/// Overlays against ffmpeg, frame by frame (PSNR ≥ 40 dB): `overlay` for position, alpha and opacity
/// (`colorchannelmixer=aa=`), `perspective` (sense=destination, linear) for corner pins, `maskedmerge` for masks.
/// The sequence under the overlays is a 1 s testsrc2 clip on a 128×96 canvas (BT.601 limited, as ffmpeg's defaults).
@Suite(.serialized) struct OverlayOracleTests {
    static let size = (width: 128, height: 96)

    /// A directory with the base clip `a.y4m` (30 frames of testsrc2).
    static func media() throws -> URL {
        let directory = try makeTemporaryDirectory(prefix: "overlay")
        try LavfiMedia.testsrc2(directory.appendingPathComponent("a.y4m").path, size: "128x96", frames: 30,
                                arguments: ["-pix_fmt", "yuv420p"])
        return directory
    }

    static func ffmpeg(_ arguments: [String]) throws {
        _ = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-y"] + arguments, timeout: 60)
    }

    static func compare(_ ours: [[UInt8]], _ theirs: [[UInt8]], count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(ours.count == count, sourceLocation: sourceLocation)
        #expect(theirs.count == count, sourceLocation: sourceLocation)
        for index in 0..<min(ours.count, theirs.count) {
            let psnr = CompositionMedia.psnr(ours[index], theirs[index])
            #expect(psnr >= 40, "frame \(index): \(psnr) dB", sourceLocation: sourceLocation)
        }
    }

    /// (opacity, x, y): a 48×32 PNG whose alpha ramps left to right, shown from frame 6 to frame 20.
    static let overlayCases: [(String, Int, Int)] = [
        ("1", 20, 10),
        ("0.5", 20, 10),
        ("0.75", -10, 70), // partly off the canvas, top left and bottom
        ("1", 100, 6),     // partly off the right edge
    ]

    @Test(arguments: overlayCases)
    func overlayIsFfmpegsOverlay(_ testCase: (String, Int, Int)) throws {
        let (opacity, x, y) = testCase
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        let logo = directory.appendingPathComponent("logo.png").path
        try Self.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=48x32:rate=1,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='255*X/W'",
                         "-frames:v", "1", logo])
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 128, "height": 96, "frame_rate": 30},
             "items": [{"type": "clip", "source": "a.y4m", "duration": 1}],
             "overlays": [{"source": "logo.png", "start": 0.2, "duration": 0.5, "x": \(x), "y": \(y),
                           "opacity": \(opacity)}]}
            """)
        let ours = try CompositionMedia.render(timeline, baseDirectory: directory.path).map(\.packed)
        let graph = "[1:v]format=rgba,colorchannelmixer=aa=\(opacity)[o];"
            + "[0:v][o]overlay=x=\(x):y=\(y):format=yuv420:enable='gte(n,6)*lt(n,21)'"
        let theirs = try CompositionMedia.ffmpegFrames(inputs: [directory.appendingPathComponent("a.y4m").path, logo],
                                                       graph: graph, width: 128, height: 96)
        Self.compare(ours, theirs, count: 30)
        // The overlay is really there (not a test that passes on the bare clip): frame 10 differs from the clip.
        let bare = try CompositionMedia.ffmpegFrames(inputs: [directory.appendingPathComponent("a.y4m").path],
                                                     graph: "[0:v]null", width: 128, height: 96)
        #expect(CompositionMedia.psnr(ours[10], bare[10]) < 30)
        #expect(ours[2] == bare[2])
    }

    /// Video files that carry alpha and FFmpeg 5.1 decodes with it: (file name, encoder arguments).
    static let alphaVideoCases: [(String, [String])] = [
        ("sticker.nut", ["-pix_fmt", "yuva420p", "-c:v", "rawvideo"]),
        ("sticker-qtrle.mov", ["-pix_fmt", "argb", "-c:v", "qtrle"]),
        ("sticker-png.mov", ["-pix_fmt", "rgba", "-c:v", "png"]),
    ]

    /// A video overlay with alpha scaled to 64×48 at (30, 20), its first frame taken 1/3 s in.
    @Test(arguments: alphaVideoCases)
    func videoOverlayWithAlphaScaled(_ testCase: (String, [String])) throws {
        let (name, encoding) = testCase
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent(name).path
        try Self.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=96x72:rate=30,format=yuva420p,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='128+127*sin(X/8+N/5)'",
                         "-frames:v", "60"] + encoding + [clip])
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 128, "height": 96, "frame_rate": 30},
             "items": [{"type": "clip", "source": "a.y4m", "duration": 1}],
             "overlays": [{"source": "\(name)", "in": "1/3", "x": 30, "y": 20, "width": 64, "height": 48}]}
            """)
        let ours = try CompositionMedia.render(timeline, baseDirectory: directory.path).map(\.packed)
        let graph = "[1:v]trim=start_frame=10,setpts=PTS-STARTPTS,scale=64:48:flags=bicubic[o];[0:v][o]overlay=x=30:y=20:format=yuv420:shortest=1"
        let theirs = try CompositionMedia.ffmpegFrames(inputs: [directory.appendingPathComponent("a.y4m").path, clip],
                                                       graph: graph, width: 128, height: 96)
        Self.compare(ours, theirs, count: 30)
    }

    /// ffmpeg's perspective maps the other way round from a corner pin's point of view: with sense=destination it
    /// sends the corners of its (canvas-sized) input to the given points and clamps outside, so the picture is a
    /// canvas-sized yuva420p frame with a transparent border; warped, the border keeps everything outside the quad
    /// transparent, and `overlay` puts the result over the clip. Corners move linearly from key 0 to key 29: ffmpeg
    /// evaluates the same line per frame (eval=frame, `in` − 1 is the frame index).
    @Test func cornerPinIsFfmpegsPerspective() throws {
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        let picture = directory.appendingPathComponent("picture.nut").path
        try Self.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=120x88:rate=30,hue=h=90,format=yuva420p,pad=128:96:4:4:color=black@0",
                         "-frames:v", "1", "-c:v", "rawvideo", picture])
        let first = [20.0, 10, 110, 18, 100, 85, 12, 80] // TL, TR, BR, BL
        let last = [30.0, 4, 118, 30, 90, 92, 4, 70]
        func points(_ c: [Double]) -> String {
            "[[\(c[0]), \(c[1])], [\(c[2]), \(c[3])], [\(c[4]), \(c[5])], [\(c[6]), \(c[7])]]"
        }
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 128, "height": 96, "frame_rate": 30},
             "items": [{"type": "clip", "source": "a.y4m", "duration": 1}],
             "overlays": [{"source": "picture.nut",
                           "corner_pin": [{"frame": 0, "points": \(points(first))}, {"frame": 29, "points": \(points(last))}]}]}
            """)
        let ours = try CompositionMedia.render(timeline, baseDirectory: directory.path).map(\.packed)
        func expression(_ index: Int) -> String { "\(first[index])+(\(last[index] - first[index]))*(in-1)/29" }
        // ffmpeg's corner order: top left, top right, bottom left, bottom right.
        let order = [(0, 1), (2, 3), (6, 7), (4, 5)]
        let corners = order.enumerated().map { corner, pair in
            "x\(corner)='\(expression(pair.0))':y\(corner)='\(expression(pair.1))'"
        }.joined(separator: ":")
        let graph = "[1:v]loop=loop=-1:size=1,format=yuva420p,perspective=\(corners):sense=destination:interpolation=linear:eval=frame[w];"
            + "[0:v][w]overlay=format=yuv420:shortest=1"
        let theirs = try CompositionMedia.ffmpegFrames(inputs: [directory.appendingPathComponent("a.y4m").path, picture],
                                                       graph: graph, width: 128, height: 96)
        Self.compare(ours, theirs, count: 30)
        let bare = try CompositionMedia.ffmpegFrames(inputs: [directory.appendingPathComponent("a.y4m").path],
                                                     graph: "[0:v]null", width: 128, height: 96)
        #expect(CompositionMedia.psnr(ours[15], bare[15]) < 30)
    }

    /// A full-canvas opaque overlay through a moving soft-edged gray mask (white shows the overlay) against
    /// `maskedmerge`, whose chroma planes take the mask's 2×2 means (its planes pair up one to one).
    @Test func maskIsFfmpegsMaskedmerge() throws {
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        let b = directory.appendingPathComponent("b.y4m").path, mask = directory.appendingPathComponent("mask.nut").path
        try LavfiMedia.testsrc2(b, size: "128x96", frames: 30, arguments: ["-vf", "hflip,hue=h=120", "-pix_fmt", "yuv420p"])
        try Self.ffmpeg(["-f", "lavfi", "-i", "nullsrc=size=128x96:rate=30,format=gray,geq=lum='clip((X-20-2*N)*6\\,0\\,255)*gt(Y\\,10)'",
                         "-frames:v", "30", "-c:v", "rawvideo", mask])
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 128, "height": 96, "frame_rate": 30},
             "items": [{"type": "clip", "source": "a.y4m", "duration": 1}],
             "overlays": [{"source": "b.y4m", "mask": {"source": "mask.nut"}}]}
            """)
        let ours = try CompositionMedia.render(timeline, baseDirectory: directory.path).map(\.packed)
        let graph = "[2:v]format=gray,split[m1][m2];[m2]scale=64:48:flags=area,split[mu][mv];"
            + "[m1][mu][mv]mergeplanes=0x001020:yuv420p[m];[0:v][1:v][m]maskedmerge"
        let theirs = try CompositionMedia.ffmpegFrames(inputs: [directory.appendingPathComponent("a.y4m").path, b, mask],
                                                       graph: graph, width: 128, height: 96)
        Self.compare(ours, theirs, count: 30)
    }
}
