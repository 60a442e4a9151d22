import Foundation
import MediaIO
import Testing
import TestSupport
@testable import Composition
@testable import Timeline

/// A file's display matrix shown upright as ffmpeg's autorotate shows it, composed with the item's own flip and
/// rotation: the composition rule for every combination on a small picture, and rotated MP4s against `transpose`.
@Suite struct DisplayRotationTests {
    typealias Picture = (width: Int, height: Int, pixels: [Int])

    static func turned(_ picture: Picture, _ rotation: Timeline.Rotation) -> Picture {
        var result = picture
        for _ in 0..<(rotation.rawValue / 90) {
            // One quarter turn clockwise: (x, y) of the result is (y, h − 1 − x) of the source.
            let (w, h) = (result.width, result.height)
            result = (h, w, (0..<(w * h)).map { index in
                let (x, y) = (index % h, index / h)
                return result.pixels[(h - 1 - x) * w + y]
            })
        }
        return result
    }

    static func flipped(_ picture: Picture, _ flip: Timeline.Flip) -> Picture {
        let (w, h) = (picture.width, picture.height)
        return (w, h, (0..<(w * h)).map { index in
            let (x, y) = (index % w, index / w)
            return picture.pixels[(flip.contains(.vertical) ? h - 1 - y : y) * w + (flip.contains(.horizontal) ? w - 1 - x : x)]
        })
    }

    static let flips: [Timeline.Flip] = [[], .horizontal, .vertical, [.horizontal, .vertical]]

    @Test func oneRotationAfterTheFlipIsTheFileTurnThenFlipThenRotate() {
        let source: Picture = (6, 4, Array(0..<24))
        for display in Timeline.Rotation.allCases {
            for flip in Self.flips {
                for rotation in Timeline.Rotation.allCases {
                    let expected = Self.turned(Self.flipped(Self.turned(source, display), flip), rotation)
                    let placement = Placement(
                        sourceWidth: 6, sourceHeight: 4, canvasWidth: expected.width, canvasHeight: expected.height,
                        fit: .stretch, rotation: rotation.composed(afterDisplayTurn: display, flip: flip), flip: flip)
                    #expect(placement.scaledWidth == 6 && placement.scaledHeight == 4)
                    let walk = placement.walk(plane: 0, stride: 6)
                    let placed = (0..<(expected.width * expected.height)).map { index in
                        source.pixels[walk.base + (index % expected.width) * walk.stepX + (index / expected.width) * walk.stepY]
                    }
                    #expect(placed == expected.pixels, "display \(display), flip \(flip.rawValue), rotate \(rotation)")
                }
            }
        }
    }

    /// (the file's clockwise turn, the item's own keys, the ffmpeg filters turning the unrotated file the same way)
    static let oracleCases: [(Int, String, String)] = [
        (90, "", "transpose=clock"),
        (180, "", "hflip,vflip"),
        (270, "", "transpose=cclock"),
        (90, #", "rotate": 90"#, "transpose=clock,transpose=clock"),
        (90, #", "flip": "horizontal""#, "transpose=clock,hflip"),
        (270, #", "flip": "vertical", "rotate": 90"#, "transpose=cclock,vflip,transpose=clock"),
    ]

    @Test(arguments: oracleCases)
    func rotatedFileIsShownAsTransposeShowsIt(_ testCase: (Int, String, String)) throws {
        let (degrees, keys, filters) = testCase
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("plain.mp4").path
        let turned = directory.appendingPathComponent("turned.mp4").path
        try LavfiMedia.testsrc2(plain, size: "64x32", frames: 10, arguments: ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p"])
        try FileManager.default.copyItem(atPath: plain, toPath: turned)
        try TrackMatrix.set(DisplayMatrix.clockwise(degrees).values, in: turned)
        let quarter = (degrees + (keys.contains("rotate") ? 90 : 0)) % 180 == 90
        let (width, height) = quarter ? (32, 64) : (64, 32)
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": \(width), "height": \(height), "frame_rate": 30},
             "items": [{"type": "clip", "source": "turned.mp4", "duration": "1/3"\(keys)}]}
            """)
        let ours = try CompositionMedia.render(timeline, baseDirectory: directory.path).map(\.packed)
        let theirs = try CompositionMedia.ffmpegFrames(inputs: [plain], graph: "[0:v]\(filters)", width: width, height: height)
        #expect(ours.count == 10 && theirs.count == 10)
        for index in 0..<min(ours.count, theirs.count) {
            let psnr = CompositionMedia.psnr(ours[index], theirs[index])
            #expect(psnr >= 40, "frame \(index): \(psnr) dB")
        }
        if keys.isEmpty {
            // And ffmpeg's own autorotate of the turned file is that transpose: the matrix is what ffmpeg reads.
            let autorotated = try CompositionMedia.ffmpegFrames(inputs: [turned], graph: "[0:v]null", width: width, height: height)
            #expect(autorotated == theirs)
        }
    }

    @Test func aTurnThatIsNotAQuarterIsRefusedWithTheFix() throws {
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tilted.mp4").path
        try LavfiMedia.testsrc2(path, size: "64x32", frames: 3)
        // cos 30°, sin 30° in 16.16.
        try TrackMatrix.set([0xDDB4, 0x8000, 0, -0x8000, 0xDDB4, 0, 0, 0, 0x4000_0000], in: path)
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 32, "frame_rate": 30},
             "items": [{"type": "clip", "source": "tilted.mp4", "duration": 0.1}]}
            """)
        let error = try #require(try CompositionMedia.firstFrameError(timeline, baseDirectory: directory.path))
        #expect(error.path == "$.items[0].source" && "\(error)".contains("30°") && "\(error)".contains("re-encode"))
    }
}
