import Foundation
import Testing
import TestSupport
@testable import Composition
@testable import Timeline

/// Fit, flip and rotation against ffmpeg's transpose/hflip/vflip/pad/crop/scale on a 128×96 testsrc2 clip: exact
/// where no scaling is involved, PSNR ≥ 40 dB where libswscale scales on both sides.
@Suite(.serialized) struct PlacementOracleTests {
    /// (item keys, canvas width, height, ffmpeg filter, minimum PSNR; infinity: byte-exact)
    static let cases: [(String, Int, Int, String, Double)] = [
        (#""rotate": 90, "fit": "stretch""#, 96, 128, "transpose=1", .infinity),
        (#""rotate": 270, "fit": "stretch""#, 96, 128, "transpose=2", .infinity),
        (#""rotate": 180"#, 128, 96, "hflip,vflip", .infinity),
        (#""flip": "horizontal""#, 128, 96, "hflip", .infinity),
        (#""flip": "vertical""#, 128, 96, "vflip", .infinity),
        (#""flip": "both""#, 128, 96, "hflip,vflip", .infinity),
        // The flip happens first, in the picture's own orientation, then the rotation.
        (#""flip": "horizontal", "rotate": 90"#, 96, 128, "hflip,transpose=1", .infinity),
        (#""fit": "contain""#, 192, 96, "pad=192:96:32:0:color=black", .infinity),
        (#""fit": "cover""#, 96, 96, "crop=96:96:16:0", .infinity),
        (#""fit": "contain""#, 64, 64, "scale=64:48:flags=bicubic,pad=64:64:0:8:color=black", 40),
        (#""fit": "cover", "rotate": 90"#, 64, 64, "transpose=1,scale=64:86:flags=bicubic,crop=64:64:0:10", 40),
    ]

    @Test(arguments: cases)
    func placementMatchesFfmpeg(_ testCase: (String, Int, Int, String, Double)) throws {
        let (keys, width, height, filter, minimum) = testCase
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("a.y4m").path
        try LavfiMedia.testsrc2(clip, size: "128x96", frames: 3, arguments: ["-pix_fmt", "yuv420p"])
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": \(width), "height": \(height), "frame_rate": 30},
             "items": [{"type": "clip", "source": "a.y4m", "duration": 0.1, \(keys)}]}
            """)
        let ours = try CompositionMedia.render(timeline, baseDirectory: directory.path).map(\.packed)
        let theirs = try CompositionMedia.ffmpegFrames(inputs: [clip], graph: "[0:v]\(filter)", width: width, height: height)
        #expect(ours.count == 3)
        try #require(theirs.count >= 3)
        for index in 0..<3 {
            let psnr = CompositionMedia.psnr(ours[index], theirs[index])
            #expect(psnr >= minimum, "frame \(index): \(psnr) dB")
        }
    }

    /// A PNG still, RGB, converted once into the canvas's matrix at limited range: BT.601 below 720 lines, BT.709
    /// from 720 up, as ffmpeg's scale converts with out_color_matrix; the same picture for every frame.
    @Test(arguments: [(160, 120, "bt601"), (1280, 720, "bt709")])
    func stillsConvertIntoTheCanvasMatrix(_ testCase: (Int, Int, String)) throws {
        let (width, height, matrix) = testCase
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        let still = directory.appendingPathComponent("still.png").path
        _ = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                       "testsrc=size=\(width)x\(height)", "-frames:v", "1", still])
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": \(width), "height": \(height), "frame_rate": 30},
             "items": [{"type": "still", "source": "still.png", "duration": 0.1}]}
            """)
        let ours = try CompositionMedia.render(timeline, baseDirectory: directory.path).map(\.packed)
        let theirs = try CompositionMedia.ffmpegFrames(
            inputs: [still], graph: "[0:v]scale=out_color_matrix=\(matrix):out_range=tv,format=yuv420p",
            width: width, height: height)
        #expect(ours.count == 3)
        #expect(Set(ours).count == 1)
        let psnr = CompositionMedia.psnr(ours[0], try #require(theirs.first))
        #expect(psnr >= 40, "\(psnr) dB")
        // The other matrix is measurably different: the test would notice a wrong one.
        let other = try CompositionMedia.ffmpegFrames(
            inputs: [still], graph: "[0:v]scale=out_color_matrix=\(matrix == "bt709" ? "bt601" : "bt709"):out_range=tv,format=yuv420p",
            width: width, height: height)
        #expect(CompositionMedia.psnr(ours[0], try #require(other.first)) < psnr - 3)
    }

    /// Placement arithmetic without pixels: sizes, offsets and crops stay even and inside the canvas.
    @Test func placementsAreEvenAndInside() {
        for (sourceWidth, sourceHeight) in [(1920, 1080), (1080, 1920), (640, 480), (2, 2), (1001, 7), (7, 1001)] {
            for fit in Timeline.Fit.allCases {
                for rotation in Timeline.Rotation.allCases {
                    let placement = Placement(sourceWidth: sourceWidth, sourceHeight: sourceHeight, canvasWidth: 1280,
                                              canvasHeight: 720, fit: fit, rotation: rotation, flip: [])
                    let numbers = [placement.scaledWidth, placement.scaledHeight, placement.visibleWidth,
                                   placement.visibleHeight, placement.canvasX, placement.canvasY, placement.cropX,
                                   placement.cropY]
                    #expect(numbers.allSatisfy { $0 % 2 == 0 && $0 >= 0 }, "\(sourceWidth)x\(sourceHeight) \(fit) \(rotation)")
                    #expect(placement.canvasX + placement.visibleWidth <= 1280)
                    #expect(placement.canvasY + placement.visibleHeight <= 720)
                    if fit != .contain {
                        #expect(placement.visibleWidth == 1280 && placement.visibleHeight == 720)
                    }
                }
            }
        }
    }
}
