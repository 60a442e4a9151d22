import Foundation
import TestSupport
import Testing

/// The README's post-composition hook example: its code block is the compiled file, and the program renders a
/// timeline whose every frame comes out black and white with the progress bar the hook draws.
@Suite(.serialized) struct RenderWithHookExampleTests {
    static let examplePath = "Examples/RenderWithHook/main.swift"

    @Test func readmeQuotesTheCompiledExample() throws {
        let file = try String(contentsOf: ExampleTests.root.appendingPathComponent(Self.examplePath), encoding: .utf8)
        let block = try ExampleTests.readmeBlock(after: "<!-- example: \(Self.examplePath) -->")
        #expect(block == file, "README's example differs from \(Self.examplePath): copy the file into the block")
    }

    @Test func exampleRendersTheHookedFrames() throws {
        let example = URL(fileURLWithPath: CLIRunner.rtencPath).deletingLastPathComponent()
            .appendingPathComponent("RenderWithHook").path
        try #require(FileManager.default.isExecutableFile(atPath: example), "build the package first: \(example)")
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try LavfiMedia.testsrc2(directory.appendingPathComponent("a.mp4").path, size: "160x96", frames: 30)
        let timeline = directory.appendingPathComponent("t.json").path
        try #"{"version": 1, "canvas": {"width": 160, "height": 96, "frame_rate": 30}, "items": [{"type": "clip", "source": "a.mp4", "duration": 1}]}"#
            .write(toFile: timeline, atomically: true, encoding: .utf8)
        let output = directory.appendingPathComponent("out.h264").path
        let result = try CLIRunner.run(example, [timeline, output], timeout: 60)
        try #require(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.contains("30 frames"))
        // Decoded: chroma neutral everywhere (within the encoder's error), the bar's row white up to (k+1)/30 of it.
        let raw = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-i", output, "-f", "rawvideo",
                                             "-pix_fmt", "yuv420p", "-"], timeout: 60)
        let frameSize = 160 * 96 * 3 / 2
        #expect(raw.count == 30 * frameSize)
        for frame in [0, 14, 29] {
            let base = frame * frameSize
            let chroma = raw[(raw.startIndex + base + 160 * 96)..<(raw.startIndex + base + frameSize)]
            #expect(chroma.allSatisfy { abs(Int($0) - 128) <= 6 }, "frame \(frame) has colour")
            let bar = 160 * (frame + 1) / 30
            let row = raw.startIndex + base + 94 * 160
            if bar > 8 { #expect(raw[row + bar / 2] > 200, "frame \(frame): the bar") }
            if bar < 150 { #expect(raw[row + (bar + 160) / 2] < 200 || frame == 29, "frame \(frame): past the bar") }
        }
    }
}
