import Foundation
import MediaIO
import Testing
import TestSupport
@testable import Composition
@testable import Timeline

/// Wipes, slides and pushes against ffmpeg by PSNR (≥ 40 dB every frame): `xfade=wipe*` for linear wipes, `xfade=slide*`
/// for pushes (FFmpeg 5.1's slides move both pictures), and `overlay` at the same offset for slides (5.1 has no
/// `cover*`).
@Suite(.serialized) struct WipeAndSlideOracleTests {
    /// Powers of two, so that xfade's float progress (its first frame is at 1 − 2⁻²⁴, not 1) times a side rounds
    /// back to the side, and coprime with 15, so that no other of the 15 frames puts an edge on a whole pixel, where
    /// float and exact arithmetic could disagree by one.
    static let width = 128, height = 64
    static let into444 = EngineOracleTests.into444
    static let back420 = EngineOracleTests.back420

    static func xfade(_ name: String) -> String {
        "[0:v]\(into444)[a];[1:v]\(into444)[b];[a][b]xfade=transition=\(name):duration=0.5:offset=0.5,\(back420)"
    }

    /// B over A (A held past its end), at the slide's offset: the incoming picture's corner at ±⌊(1 − p)·side⌋.
    static func overlay(x: String, y: String) -> String {
        let remaining = "floor((1-(t-0.5)/0.5)*%@)"
        let xx = x.replacingOccurrences(of: "S", with: String(format: remaining, "W"))
        let yy = y.replacingOccurrences(of: "S", with: String(format: remaining, "H"))
        // In 4:4:4, since overlay puts a 4:2:0 picture at even offsets only.
        return "[0:v]\(into444),tpad=stop_mode=clone:stop_duration=0.5[a];[1:v]\(into444),setpts=PTS+0.5/TB[b];"
            + "[a][b]overlay=x='if(lt(t,1),\(xx),0)':y='if(lt(t,1),\(yy),0)':eval=frame:format=yuv444,\(back420)"
    }

    /// What FFmpeg 5.1's xfade gets wrong at progress 0 (its first transition frame), so that frame is compared
    /// without it: wiperight and wipedown show column (row) 0 of the incoming picture already (`x > z ? a : b` with
    /// z = ⌊W·p⌋ = 0), slideleft and slideup read column (row) 0 from one past the plane (`zz = zx % w + w·(zx < 0)`
    /// with zx = −w gives w; later versions test `zx % w < 0`). Ours is exactly the outgoing picture there.
    enum StartQuirk: Sendable {
        case firstColumn, firstRow
    }

    /// (the transition's JSON, the ffmpeg graph doing the same over inputs A and B, its quirk at progress 0)
    static let cases: [(String, String, StartQuirk?)] = [
        (#"{"type": "wipe", "shape": "linear", "direction": "left", "duration": 0.5}"#, xfade("wipeleft"), nil),
        (#"{"type": "wipe", "direction": "right", "duration": 0.5}"#, xfade("wiperight"), .firstColumn),
        (#"{"type": "wipe", "direction": "up", "duration": 0.5}"#, xfade("wipeup"), nil),
        (#"{"type": "wipe", "direction": "down", "duration": 0.5}"#, xfade("wipedown"), .firstRow),
        (#"{"type": "push", "direction": "left", "duration": 0.5}"#, xfade("slideleft"), .firstColumn),
        (#"{"type": "push", "direction": "right", "duration": 0.5}"#, xfade("slideright"), nil),
        (#"{"type": "push", "direction": "up", "duration": 0.5}"#, xfade("slideup"), .firstRow),
        (#"{"type": "push", "direction": "down", "duration": 0.5}"#, xfade("slidedown"), nil),
        (#"{"type": "slide", "direction": "left", "duration": 0.5}"#, overlay(x: "S", y: "0"), nil),
        (#"{"type": "slide", "direction": "right", "duration": 0.5}"#, overlay(x: "-S", y: "0"), nil),
        (#"{"type": "slide", "direction": "up", "duration": 0.5}"#, overlay(x: "0", y: "S"), nil),
        (#"{"type": "slide", "direction": "down", "duration": 0.5}"#, overlay(x: "0", y: "-S"), nil),
    ]

    /// Copies the first column (row) of every plane of a packed I420 frame from `ours` into `theirs`.
    static func patch(_ theirs: inout [UInt8], from ours: [UInt8], _ quirk: StartQuirk) {
        var offset = 0
        for (planeWidth, planeHeight) in [(width, height), (width / 2, height / 2), (width / 2, height / 2)] {
            for index in 0..<(quirk == .firstRow ? planeWidth : planeHeight) {
                let position = offset + (quirk == .firstRow ? index : index * planeWidth)
                theirs[position] = ours[position]
            }
            offset += planeWidth * planeHeight
        }
    }

    @Test(arguments: cases)
    func matchesFfmpeg(_ testCase: (String, String, StartQuirk?)) throws {
        let (transition, graph, quirk) = testCase
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.y4m").path, b = directory.appendingPathComponent("b.y4m").path
        let size = "\(Self.width)x\(Self.height)"
        try LavfiMedia.testsrc2(a, size: size, frames: 30, arguments: ["-pix_fmt", "yuv420p"])
        try LavfiMedia.testsrc2(b, size: size, frames: 30, arguments: ["-vf", "hflip,hue=h=120", "-pix_fmt", "yuv420p"])
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": \(Self.width), "height": \(Self.height), "frame_rate": 30},
             "items": [{"type": "clip", "source": "a.y4m", "duration": 1, "transition": \(transition)},
                       {"type": "clip", "source": "b.y4m", "duration": 1}]}
            """)
        let ours = try CompositionMedia.render(timeline, baseDirectory: directory.path).map(\.packed)
        var theirs = try CompositionMedia.ffmpegFrames(inputs: [a, b], graph: graph, width: Self.width, height: Self.height)
        #expect(ours.count == 45)
        #expect(theirs.count >= 45)
        // Frame 15 is the transition's first, at progress 0.
        if let quirk, ours.count > 15, theirs.count > 15 { Self.patch(&theirs[15], from: ours[15], quirk) }
        for index in 0..<min(ours.count, theirs.count) {
            let psnr = CompositionMedia.psnr(ours[index], theirs[index])
            #expect(psnr >= 40, "frame \(index): \(psnr) dB")
        }
    }
}
