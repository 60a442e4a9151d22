import Foundation
import MediaCore
import Testing
import TestSupport
@testable import Composition
@testable import Timeline

/// The pure parts of overlays: corner-track interpolation, the homography, the overlay JSON and track files, the
/// plan's overlay spans and windows.
@Suite struct OverlayModelTests {
    static let square = Quad([0, 0, 100, 0, 100, 100, 0, 100])
    static let moved = Quad([10, 20, 110, 20, 110, 120, 10, 120])
    static let skewed = Quad([0, 0, 200, 50, 150, 150, -50, 100])

    /// (keys as (frame, quad), frame asked, expected quad)
    static let interpolationCases: [([(Int, Quad)], Int, Quad)] = [
        ([(0, square)], 0, square),
        ([(0, square)], 1000, square),                          // one key holds forever
        ([(5, square), (15, moved)], 0, square),                // before the first key: held
        ([(5, square), (15, moved)], 5, square),                // on a key: the key
        ([(5, square), (15, moved)], 10, Quad([5, 10, 105, 10, 105, 110, 5, 110])), // halfway
        ([(5, square), (15, moved)], 7, Quad([2, 4, 102, 4, 102, 104, 2, 104])),    // a fifth of the way
        ([(5, square), (15, moved)], 15, moved),
        ([(5, square), (15, moved)], 99, moved),                // after the last key: held
        ([(0, square), (10, moved), (20, square)], 15, Quad([5, 10, 105, 10, 105, 110, 5, 110])), // second segment
        ([(0, square), (1, skewed)], 1, skewed),                // adjacent keys
    ]

    @Test(arguments: interpolationCases)
    func cornerTracksInterpolateLinearlyBetweenKeys(_ testCase: ([(Int, Quad)], Int, Quad)) {
        let (keys, frame, expected) = testCase
        let quad = CornerKey.quad(atFrame: frame, in: keys.map { CornerKey(frame: $0.0, quad: $0.1) })
        for (got, want) in zip(quad.points, expected.points) {
            #expect(abs(got.x - want.x) < 1e-9 && abs(got.y - want.y) < 1e-9, "frame \(frame): \(got) vs \(want)")
        }
    }

    @Test(arguments: [square, moved, skewed, Quad([3.5, 7.25, 90, 2, 120, 99.5, 1, 80])])
    func homographySendsThePictureCornersToTheQuad(_ quad: Quad) throws {
        let forward = try #require(Homography(width: 64, height: 48, quad: quad))
        let corners = [(0.0, 0.0), (64.0, 0.0), (64.0, 48.0), (0.0, 48.0)]
        for (corner, point) in zip(corners, quad.points) {
            let mapped = try #require(forward.apply(corner.0, corner.1))
            #expect(abs(mapped.x - point.x) < 1e-9 && abs(mapped.y - point.y) < 1e-9)
            let back = try #require(forward.inverted?.apply(point.x, point.y))
            #expect(abs(back.x - corner.0) < 1e-9 && abs(back.y - corner.1) < 1e-9)
        }
    }

    @Test func degenerateQuadsCoverNothing() {
        #expect(Homography(width: 10, height: 10, quad: Quad([0, 0, 10, 10, 20, 20, 30, 30])) == nil)
        #expect(Homography(width: 10, height: 10, quad: Quad([5, 5, 5, 5, 5, 5, 5, 5])) == nil)
    }

    @Test func overlayJSONWithEveryField() throws {
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 32, "frame_rate": 30},
             "items": [{"type": "color", "color": "#000000", "duration": 4}],
             "overlays": [
               {"source": "logo.png", "start": 0.5, "duration": 2, "x": -6, "y": 4, "width": 20, "height": 10,
                "opacity": 0.25},
               {"source": "poster.mp4", "in": "1/2", "width": 32, "height": 16, "opacity": 1,
                "corner_pin": [{"frame": 0, "points": [[1, 2], [30, 2], [31, 20], [0, 21.5]]}],
                "mask": {"source": "hand.mp4", "in": 3}},
               {"source": "sticker.mov", "corner_pin": "track.csv"}]}
            """)
        #expect(timeline.overlays == [
            Timeline.Overlay(source: "logo.png", start: Fraction(1, 2), duration: Fraction(2),
                             geometry: .rectangle(x: -6, y: 4, size: .init(width: 20, height: 10)), opacity: 0.25),
            Timeline.Overlay(source: "poster.mp4", sourceStart: Fraction(1, 2),
                             geometry: .cornerPin(.keys([CornerKey(frame: 0, quad: Quad([1, 2, 30, 2, 31, 20, 0, 21.5]))]),
                                                  size: .init(width: 32, height: 16)),
                             mask: .init(source: "hand.mp4", sourceStart: Fraction(3))),
            Timeline.Overlay(source: "sticker.mov", geometry: .cornerPin(.file("track.csv"), size: nil)),
        ])
        let plan = try CompositionPlan(timeline)
        #expect(plan.overlaySpans.map(\.start) == [Fraction(1, 2), .zero, .zero])
        #expect(plan.overlaySpans.map(\.end) == [Fraction(5, 2), Fraction(4), Fraction(4)])
        #expect(plan.overlaySpans.map(\.open) == [.zero, .zero, .zero]) // pre-roll clamped to 0 without loop
        #expect(plan.maximumOverlayReaders == 4)
    }

    /// (overlay JSON, path of the error, a word of its reason)
    static let malformedOverlays: [(String, String, String)] = [
        (#"{"x": 0}"#, "$.overlays[0].source", "missing"),
        (#"{"source": ""}"#, "$.overlays[0].source", "empty"),
        (#"{"source": "a.png", "size": 3}"#, "$.overlays[0].size", "unknown key"),
        (#"{"source": "a.png", "x": 1.5}"#, "$.overlays[0].x", "integer"),
        (#"{"source": "a.png", "x": 70000}"#, "$.overlays[0].x", "outside"),
        (#"{"source": "a.png", "width": 20}"#, "$.overlays[0].height", "both"),
        (#"{"source": "a.png", "width": 21, "height": 10}"#, "$.overlays[0].width", "even"),
        (#"{"source": "a.png", "opacity": 1.5}"#, "$.overlays[0].opacity", "0…1"),
        (#"{"source": "a.png", "opacity": "x"}"#, "$.overlays[0].opacity", "fraction"),
        (#"{"source": "a.png", "start": -1}"#, "$.overlays[0].start", "at most"),
        (#"{"source": "a.png", "duration": 0}"#, "$.overlays[0].duration", "more than 0"),
        (#"{"source": "a.png", "start": 4}"#, "$.overlays[0].start", "after the end"),
        (#"{"source": "a.png", "start": 3, "duration": 2}"#, "$.overlays[0].duration", "after the end"),
        (#"{"source": "a.png", "mask": "m.png"}"#, "$.overlays[0].mask", "object"),
        (#"{"source": "a.png", "mask": {"in": 1}}"#, "$.overlays[0].mask.source", "missing"),
        (#"{"source": "a.png", "mask": {"source": "m.png", "invert": true}}"#, "$.overlays[0].mask.invert", "unknown key"),
        (#"{"source": "a.png", "corner_pin": 3}"#, "$.overlays[0].corner_pin", "track file"),
        (#"{"source": "a.png", "corner_pin": []}"#, "$.overlays[0].corner_pin", "at least one"),
        (#"{"source": "a.png", "corner_pin": "t.csv", "x": 0}"#, "$.overlays[0].x", "corners"),
        (#"{"source": "a.png", "corner_pin": [{"frame": 0}]}"#, "$.overlays[0].corner_pin[0].points", "missing"),
        (#"{"source": "a.png", "corner_pin": [{"frame": -1, "points": []}]}"#, "$.overlays[0].corner_pin[0].frame", "outside"),
        (#"{"source": "a.png", "corner_pin": [{"frame": 0, "points": [[0, 0], [1, 0], [1, 1]]}]}"#,
         "$.overlays[0].corner_pin[0].points", "4 points"),
        (#"{"source": "a.png", "corner_pin": [{"frame": 0, "points": [[0, 0], [1, 0], [1, 1], [0]]}]}"#,
         "$.overlays[0].corner_pin[0].points[3]", "[x, y]"),
        (#"{"source": "a.png", "corner_pin": [{"frame": 0, "points": [[0, 0], [1, 0], [1, "1"], [0, 1]]}]}"#,
         "$.overlays[0].corner_pin[0].points[2][1]", "number"),
        (#"{"source": "a.png", "corner_pin": [{"frame": 3, "points": [[0, 0], [1, 0], [1, 1], [0, 1]]}, {"frame": 3, "points": [[0, 0], [1, 0], [1, 1], [0, 1]]}]}"#,
         "$.overlays[0].corner_pin[1].frame", "ascend"),
    ]

    @Test(arguments: malformedOverlays)
    func malformedOverlaysNameTheirPath(_ testCase: (String, String, String)) {
        let (overlay, path, word) = testCase
        let document = """
            {"version": 1, "canvas": {"width": 64, "height": 32, "frame_rate": 30},
             "items": [{"type": "color", "color": "#000000", "duration": 4}], "overlays": [\(overlay)]}
            """
        #expect {
            _ = try Timeline.parse(document)
        } throws: { error in
            guard let error = error as? TimelineError else { return false }
            return error.path == path && error.reason.contains(word)
        }
    }

    @Test func overlaysMustBeAnArray() {
        #expect(throws: TimelineError.self) {
            _ = try Timeline.parse("""
                {"version": 1, "canvas": {"width": 64, "height": 32, "frame_rate": 30},
                 "items": [{"type": "color", "color": "#000000", "duration": 4}], "overlays": {}}
                """)
        }
    }

    /// Every strict prefix of a timeline with overlays fails cleanly; the whole parses.
    @Test func dripFedOverlayDocument() throws {
        let document = Array("""
            {"version": 1, "canvas": {"width": 64, "height": 32, "frame_rate": 30},
             "items": [{"type": "color", "color": "#000000", "duration": 4}],
             "overlays": [{"source": "a.png", "x": 2, "corner_pin": "t.csv", "mask": {"source": "m.png"}}]}
            """.utf8)
        for length in 0..<document.count {
            #expect(throws: TimelineError.self) { _ = try Timeline.parse(Array(document[..<length])) }
        }
        #expect(throws: TimelineError.self) { _ = try Timeline.parse(document) } // x with a corner pin
        let fixed = String(decoding: document, as: UTF8.self).replacing(#""x": 2, "#, with: "")
        #expect(try Timeline.parse(fixed).overlays.count == 1)
    }

    @Test func loopingOverlaysPreRollDuringThePreviousPass() throws {
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 32, "frame_rate": 30}, "loop": true,
             "items": [{"type": "color", "color": "#000000", "duration": 4}],
             "overlays": [{"source": "a.png", "duration": 1}, {"source": "b.png", "start": 3.5, "mask": {"source": "m.png"}}]}
            """)
        let plan = try CompositionPlan(timeline)
        #expect(plan.overlaySpans.map(\.open) == [Fraction(-1), Fraction(5, 2)])
        #expect(plan.overlaySpans.map(\.close) == [Fraction(1), Fraction(4)])
        // The first overlay's window of the next pass (3 s … 5 s) overlaps the second's (2.5 s … 4 s): 1 + 2.
        #expect(plan.maximumOverlayReaders == 3)
    }

    // MARK: Track files

    @Test func csvTrackWithHeaderCommentsAndBlankLines() throws {
        let csv = """
            frame,tl_x,tl_y,tr_x,tr_y,br_x,br_y,bl_x,bl_y
            # from mocha, frame 0 is the overlay's first
            0, 0,0, 100,0, 100,100, 0,100\r

            10,10,20,110,20,110,120,10,120
            """
        let keys = try CornerTrack.parseFile(Array(csv.utf8), name: "t.csv", path: "$.overlays[0].corner_pin")
        #expect(keys == [CornerKey(frame: 0, quad: Self.square), CornerKey(frame: 10, quad: Self.moved)])
    }

    @Test func jsonTrackFileIsTheInlineFormat() throws {
        let json = #"[{"frame": 2, "points": [[0, 0], [100, 0], [100, 100], [0, 100]]}]"#
        let keys = try CornerTrack.parseFile(Array(json.utf8), name: "t.json", path: "$.overlays[1].corner_pin")
        #expect(keys == [CornerKey(frame: 2, quad: Self.square)])
    }

    /// (file, a word of the reason) — every error names the file, its line and the timeline path.
    static let malformedTracks: [(String, String)] = [
        ("", "no keys"),
        ("frame,a\n", "no keys"),
        ("0,1,2,3\n", "line 1: expected 9"),
        ("0,0,0,1,0,1,1,0,1\nx,0,0,1,0,1,1,0,1\n", "line 2: frame \"x\""),
        ("0,0,0,1,0,1,1,0,zz\n", "line 1: \"zz\" is not a coordinate"),
        ("0,0,0,1,0,1,1,0,1e9\n", "line 1: \"1e9\""),
        ("5,0,0,1,0,1,1,0,1\n5,0,0,1,0,1,1,0,1\n", "line 2: frame 5 after frame 5"),
        ("[{\"frame\": 0}]", "t.csv $[0].points: missing"),
        ("[{\"frame\": 0, ", "t.csv"),
    ]

    @Test(arguments: malformedTracks)
    func malformedTrackFilesSayWhere(_ testCase: (String, String)) {
        let (file, word) = testCase
        #expect {
            _ = try CornerTrack.parseFile(Array(file.utf8), name: "t.csv", path: "$.overlays[0].corner_pin")
        } throws: { error in
            guard let error = error as? TimelineError else { return false }
            return error.path == "$.overlays[0].corner_pin" && error.reason.contains(word)
        }
    }
}
