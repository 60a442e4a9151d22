import Testing
@testable import Composition
@testable import Timeline

/// The timeline format: a valid document, every strict prefix of it (drip-fed), and a table of malformed documents,
/// each refused with the JSON path and the reason.
@Suite struct TimelineParserTests {
    static let valid = """
        {
          "version": 1,
          "canvas": {"width": 1280, "height": 720, "frame_rate": "30000/1001", "background": "#102030"},
          "loop": true,
          "items": [
            {"type": "clip", "source": "a.mp4", "in": 1.5, "duration": 4, "speed": "3/2", "flip": "horizontal",
             "rotate": 90, "fit": "cover",
             "transition": {"type": "dissolve", "duration": 0.5, "easing": "ease-in-out"}},
            {"type": "still", "source": "logo \\u00e9.png", "duration": 2, "fit": "contain", "letterbox": "#FFFFFF",
             "transition": {"type": "fadeblack", "duration": "1/2"}},
            {"type": "color", "color": "#ff0000", "duration": 1e0}
          ]
        }
        """

    @Test func validDocumentParsesExactly() throws {
        let timeline = try Timeline.parse(Self.valid)
        #expect(timeline.canvas == Timeline.Canvas(width: 1280, height: 720, frameRate: Fraction(30000, 1001),
                                                   background: RGBColor(red: 0x10, green: 0x20, blue: 0x30)))
        #expect(timeline.loop)
        #expect(timeline.items.count == 3)
        let clip = timeline.items[0]
        #expect(clip.content == .clip(source: "a.mp4", in: Fraction(3, 2)))
        #expect(clip.duration == Fraction(4))
        #expect(clip.speed == Fraction(3, 2))
        #expect(clip.outputDuration == Fraction(8, 3))
        #expect(clip.flip == .horizontal)
        #expect(clip.rotation == .clockwise90)
        #expect(clip.fit == .cover)
        #expect(clip.transition == Timeline.Transition(kind: .dissolve, duration: Fraction(1, 2), easing: .easeInOut))
        #expect(timeline.items[1].content == .still(source: "logo é.png"))
        #expect(timeline.items[1].letterbox == RGBColor(red: 255, green: 255, blue: 255))
        #expect(timeline.items[1].transition?.kind == .fadeblack)
        #expect(timeline.items[2].content == .color(RGBColor(red: 255, green: 0, blue: 0)))
        #expect(timeline.items[2].duration == Fraction(1))
    }

    @Test func everyStrictPrefixFailsCleanly() {
        let bytes = Array(Self.valid.utf8)
        for length in 0..<bytes.count {
            do {
                _ = try Timeline.parse(Array(bytes[..<length]))
                Issue.record("a prefix of \(length) of \(bytes.count) bytes parsed")
            } catch {
                #expect(error.code == .syntax, "prefix \(length): \(error)")
                #expect(error.path != nil)
            }
        }
    }

    /// (document, expected code, path, a part of the reason)
    static let malformed: [(String, TimelineError.Code, String, String)] = [
        ("", .syntax, "$", "empty"),
        ("[1,]", .syntax, "$[1]", "expected a value"),
        ("{\"a\":1,\"a\":2}", .syntax, "$", "duplicate member name \"a\""),
        ("{\"version\":1} x", .syntax, "$", "after the document"),
        ("{\"version\": 01}", .syntax, "$.version", "leading zero"),
        ("{\"version\": \"\\x\"}", .syntax, "$.version", "invalid escape"),
        ("{\"version\": \"\\ud800\"}", .syntax, "$.version", "high surrogate"),
        ("{\"version\": \"a\u{01}\"}", .syntax, "$.version", "control character"),
        (String(repeating: "[", count: 100), .limitExceeded, "$" + String(repeating: "[0]", count: 64), "nesting"),
        ("[]", .invalidTimeline, "$", "expected an object, got an array"),
        ("{\"version\": 2, \"canvas\": {}, \"items\": []}", .unsupportedVersion, "$.version", "version 2"),
        ("{\"version\": 1.5}", .invalidTimeline, "$.version", "expected an integer"),
        ("{\"version\": 1, \"items\": []}", .invalidTimeline, "$.canvas", "missing"),
        (doc(canvas: ##"{"width": 1281, "height": 720, "frame_rate": 30}"##), .invalidTimeline, "$.canvas.width", "even"),
        (doc(canvas: ##"{"width": 8, "height": 720, "frame_rate": 30}"##), .invalidTimeline, "$.canvas.width", "outside 16…8192"),
        (doc(canvas: ##"{"width": 64, "height": 64, "frame_rate": 0}"##), .invalidTimeline, "$.canvas.frame_rate", "outside"),
        (doc(canvas: ##"{"width": 64, "height": 64, "frame_rate": "30/0"}"##), .invalidTimeline, "$.canvas.frame_rate", "not a fraction"),
        (doc(canvas: ##"{"width": 64, "height": 64, "frame_rate": 30, "background": "red"}"##), .invalidTimeline,
         "$.canvas.background", "#RRGGBB"),
        (doc(canvas: ##"{"width": 64, "height": 64, "frame_rate": 30, "fps": 30}"##), .invalidTimeline, "$.canvas.fps", "unknown key"),
        (doc(items: "[]"), .invalidTimeline, "$.items", "at least one item"),
        (doc(items: ##"[{"type": "video", "duration": 1}]"##), .invalidTimeline, "$.items[0].type", "unknown item type"),
        (doc(items: ##"[{"type": "clip", "duration": 1}]"##), .invalidTimeline, "$.items[0].source", "missing"),
        (doc(items: ##"[{"type": "clip", "source": "", "duration": 1}]"##), .invalidTimeline, "$.items[0].source", "empty"),
        (doc(items: ##"[{"type": "clip", "source": "a", "duration": 0}]"##), .invalidTimeline, "$.items[0].duration", "more than 0"),
        (doc(items: ##"[{"type": "clip", "source": "a", "duration": -1}]"##), .invalidTimeline, "$.items[0].duration", "more than 0"),
        (doc(items: ##"[{"type": "clip", "source": "a", "duration": 1, "in": -0.5}]"##), .invalidTimeline, "$.items[0].in", "in must be"),
        (doc(items: ##"[{"type": "clip", "source": "a", "duration": 1, "speed": 0}]"##), .invalidTimeline, "$.items[0].speed", "outside"),
        (doc(items: ##"[{"type": "clip", "source": "a", "duration": 1, "speed": "1/1000"}]"##), .invalidTimeline,
         "$.items[0].speed", "outside"),
        (doc(items: ##"[{"type": "clip", "source": "a", "duration": 0.0000000001}]"##), .invalidTimeline,
         "$.items[0].duration", "significant digits"),
        (doc(items: ##"[{"type": "clip", "source": "a", "duration": 1, "rotate": 45}]"##), .invalidTimeline, "$.items[0].rotate", "0, 90, 180 or 270"),
        (doc(items: ##"[{"type": "clip", "source": "a", "duration": 1, "flip": "diagonal"}]"##), .invalidTimeline, "$.items[0].flip", "unknown flip"),
        (doc(items: ##"[{"type": "clip", "source": "a", "duration": 1, "fit": "fill"}]"##), .invalidTimeline, "$.items[0].fit", "unknown fit"),
        (doc(items: ##"[{"type": "clip", "source": "a", "duration": 1, "reverse": "yes"}]"##), .invalidTimeline, "$.items[0].reverse", "true or false"),
        (doc(items: ##"[{"type": "still", "source": "a", "duration": 1, "speed": 2}]"##), .invalidTimeline, "$.items[0].speed", "unknown key"),
        (doc(items: ##"[{"type": "color", "duration": 1}]"##), .invalidTimeline, "$.items[0].color", "missing"),
        (doc(items: ##"[{"type": "color", "color": "#00ff00", "duration": 1, "transition": {"type": "dissolve", "duration": 0.5}}]"##),
         .invalidTimeline, "$.items[0].transition", "last item"),
        (doc(items: ##"[{"type": "color", "color": "#00ff00", "duration": 1, "transition": {"type": "spin", "duration": 0.5}}, \##(color)]"##),
         .invalidTimeline, "$.items[0].transition.type", "unknown transition"),
        (doc(items: ##"[{"type": "color", "color": "#00ff00", "duration": 1, "transition": {"type": "dissolve", "duration": 0.5, "easing": "bounce"}}, \##(color)]"##),
         .invalidTimeline, "$.items[0].transition.easing", "unknown easing"),
        (doc(items: ##"[{"type": "color", "color": "#00ff00", "duration": 1, "transition": {"type": "dissolve", "duration": 1.5}}, {"type": "color", "color": "#000000", "duration": 3}]"##),
         .unplannable, "$.items[0].transition.duration", "longer than item 0"),
        (doc(items: ##"[{"type": "color", "color": "#00ff00", "duration": 3, "transition": {"type": "dissolve", "duration": 1.5}}, \##(color)]"##),
         .unplannable, "$.items[0].transition.duration", "longer than item 1"),
        (doc(items: ##"[{"type": "color", "color": "#00ff00", "duration": 3, "transition": {"type": "dissolve", "duration": 1}}, {"type": "color", "color": "#00ff00", "duration": 1.5, "transition": {"type": "dissolve", "duration": 1}}, \##(color)]"##),
         .unplannable, "$.items[1]", "overlap"),
    ]

    static let color = ##"{"type": "color", "color": "#000000", "duration": 1}"##

    /// Two colour items joined by `transition`.
    static func joined(_ transition: String) -> String {
        doc(items: ##"[{"type": "color", "color": "#00ff00", "duration": 1, "transition": \##(transition)}, \##(color)]"##)
    }

    /// Wipe, slide and push parameters: (transition, expected code, path, a part of the reason)
    static let malformedTransitions: [(String, TimelineError.Code, String, String)] = [
        (##"{"type": "wipe", "duration": 0.5, "shape": "heart"}"##, .invalidTimeline, "$.items[0].transition.shape", "unknown wipe shape"),
        (##"{"type": "wipe", "duration": 0.5, "shape": 1}"##, .invalidTimeline, "$.items[0].transition.shape", "expected a string"),
        (##"{"type": "wipe", "duration": 0.5, "direction": "open"}"##, .invalidTimeline, "$.items[0].transition.direction",
         "expected left, right, up or down"),
        (##"{"type": "wipe", "duration": 0.5, "shape": "diagonal", "direction": "left"}"##, .invalidTimeline,
         "$.items[0].transition.direction", "expected up-left, up-right, down-left or down-right"),
        (##"{"type": "wipe", "duration": 0.5, "shape": "iris", "direction": "clockwise"}"##, .invalidTimeline,
         "$.items[0].transition.direction", "expected open or close"),
        (##"{"type": "wipe", "duration": 0.5, "shape": "clock", "direction": "open"}"##, .invalidTimeline,
         "$.items[0].transition.direction", "expected clockwise or counterclockwise"),
        (##"{"type": "wipe", "duration": 0.5, "softness": 1.5}"##, .invalidTimeline, "$.items[0].transition.softness", "0…1"),
        (##"{"type": "wipe", "duration": 0.5, "softness": -0.1}"##, .invalidTimeline, "$.items[0].transition.softness", "0…1"),
        (##"{"type": "wipe", "duration": 0.5, "softness": "a"}"##, .invalidTimeline, "$.items[0].transition.softness", "not a fraction"),
        (##"{"type": "wipe", "duration": 0.5, "map": ""}"##, .invalidTimeline, "$.items[0].transition.map", "empty"),
        (##"{"type": "wipe", "duration": 0.5, "map": "m.png", "shape": "iris"}"##, .invalidTimeline, "$.items[0].transition.shape",
         "has no shape"),
        (##"{"type": "wipe", "duration": 0.5, "map": "m.png", "direction": "left"}"##, .invalidTimeline,
         "$.items[0].transition.direction", "has no direction"),
        (##"{"type": "wipe", "duration": 0.5, "invert": 1}"##, .invalidTimeline, "$.items[0].transition.invert", "true or false"),
        (##"{"type": "push", "duration": 0.5, "direction": "down-left"}"##, .invalidTimeline, "$.items[0].transition.direction",
         "expected left, right, up or down"),
        (##"{"type": "slide", "duration": 0.5, "softness": 0.5}"##, .invalidTimeline, "$.items[0].transition.softness", "unknown key"),
        (##"{"type": "push", "duration": 0.5, "shape": "iris"}"##, .invalidTimeline, "$.items[0].transition.shape", "unknown key"),
        (##"{"type": "dissolve", "duration": 0.5, "direction": "left"}"##, .invalidTimeline, "$.items[0].transition.direction",
         "unknown key"),
        (##"{"type": "fadeblack", "duration": 0.5, "map": "m.png"}"##, .invalidTimeline, "$.items[0].transition.map", "unknown key"),
        (##"{"type": "slide", "duration": 0, "direction": "up"}"##, .invalidTimeline, "$.items[0].transition.duration", "more than 0"),
        (##"{"type": "push", "duration": 2, "direction": "up"}"##, .unplannable, "$.items[0].transition.duration", "longer than item 0"),
    ]

    @Test(arguments: malformedTransitions)
    func malformedTransitionIsRefusedWithPathAndReason(_ testCase: (String, TimelineError.Code, String, String)) {
        let (transition, code, path, reason) = testCase
        do {
            _ = try Timeline.parse(Self.joined(transition))
            Issue.record("parsed: \(transition)")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.path == path, "\(error)")
            #expect(error.reason.contains(reason), "\(error)")
        }
    }

    typealias Transition = Timeline.Transition
    typealias Wipe = Timeline.Transition.Wipe

    /// (transition, what it parses to): the defaults and every shape and direction.
    static let transitions: [(String, Transition)] = [
        (##"{"type": "wipe", "duration": 0.5}"##, Transition(kind: .wipe, duration: Fraction(1, 2), wipe: Wipe())),
        (##"{"type": "wipe", "duration": 0.5, "direction": "down", "softness": "1/4", "easing": "ease-in-out"}"##,
         Transition(kind: .wipe, duration: Fraction(1, 2), easing: .easeInOut, wipe: Wipe(shape: .linear(.down), softness: 0.25))),
        (##"{"type": "wipe", "duration": 0.5, "shape": "diagonal"}"##,
         Transition(kind: .wipe, duration: Fraction(1, 2), wipe: Wipe(shape: .diagonal(.downRight)))),
        (##"{"type": "wipe", "duration": 0.5, "shape": "diagonal", "direction": "up-left"}"##,
         Transition(kind: .wipe, duration: Fraction(1, 2), wipe: Wipe(shape: .diagonal(.upLeft)))),
        (##"{"type": "wipe", "duration": 0.5, "shape": "iris"}"##, Transition(kind: .wipe, duration: Fraction(1, 2), wipe: Wipe(shape: .iris(.open)))),
        (##"{"type": "wipe", "duration": 0.5, "shape": "iris", "direction": "close", "softness": 1}"##,
         Transition(kind: .wipe, duration: Fraction(1, 2), wipe: Wipe(shape: .iris(.close), softness: 1))),
        (##"{"type": "wipe", "duration": 0.5, "shape": "clock"}"##,
         Transition(kind: .wipe, duration: Fraction(1, 2), wipe: Wipe(shape: .clock(.clockwise)))),
        (##"{"type": "wipe", "duration": 0.5, "shape": "clock", "direction": "counterclockwise", "invert": true}"##,
         Transition(kind: .wipe, duration: Fraction(1, 2), wipe: Wipe(shape: .clock(.counterclockwise), invert: true))),
        (##"{"type": "wipe", "duration": 0.5, "shape": "star", "direction": "close"}"##,
         Transition(kind: .wipe, duration: Fraction(1, 2), wipe: Wipe(shape: .star(.close)))),
        (##"{"type": "wipe", "duration": 0.5, "map": "maps/bars.png", "softness": 0.05}"##,
         Transition(kind: .wipe, duration: Fraction(1, 2), wipe: Wipe(shape: .image(path: "maps/bars.png"), softness: 0.05))),
        (##"{"type": "slide", "duration": 0.5}"##, Transition(kind: .slide, duration: Fraction(1, 2), direction: .left)),
        (##"{"type": "slide", "duration": 0.5, "direction": "down"}"##, Transition(kind: .slide, duration: Fraction(1, 2), direction: .down)),
        (##"{"type": "push", "duration": 0.5, "direction": "right"}"##, Transition(kind: .push, duration: Fraction(1, 2), direction: .right)),
        (##"{"type": "push", "duration": 0.5, "direction": "up", "easing": "ease-in-out"}"##,
         Transition(kind: .push, duration: Fraction(1, 2), easing: .easeInOut, direction: .up)),
        (##"{"type": "dissolve", "duration": 0.5}"##, Transition(kind: .dissolve, duration: Fraction(1, 2))),
    ]

    @Test(arguments: transitions)
    func transitionParsesExactly(_ testCase: (String, Transition)) throws {
        let (transition, expected) = testCase
        #expect(try Timeline.parse(Self.joined(transition)).items[0].transition == expected)
    }

    @Test func transitionDocumentDripFed() {
        // Every strict prefix of a document with the new parameters fails as a syntax error, naming a path.
        let valid = Array(Self.joined(##"{"type": "wipe", "shape": "star", "direction": "close", "softness": "1/8", "invert": false, "duration": 1}"##).utf8)
        #expect((try? Timeline.parse(valid)) != nil)
        for length in 0..<valid.count {
            do {
                _ = try Timeline.parse(Array(valid[..<length]))
                Issue.record("a prefix of \(length) bytes parsed")
            } catch {
                #expect(error.code == .syntax && error.path != nil, "prefix \(length): \(error)")
            }
        }
    }

    static func doc(canvas: String = ##"{"width": 64, "height": 64, "frame_rate": 30}"##,
                    items: String = ##"[{"type": "color", "color": "#000000", "duration": 1}]"##) -> String {
        ##"{"version": 1, "canvas": \##(canvas), "items": \##(items)}"##
    }

    @Test(arguments: malformed)
    func malformedDocumentIsRefusedWithPathAndReason(_ testCase: (String, TimelineError.Code, String, String)) {
        let (document, code, path, reason) = testCase
        do {
            _ = try Timeline.parse(document)
            Issue.record("parsed: \(document)")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.path == path, "\(error)")
            #expect(error.reason.contains(reason), "\(error)")
        }
    }

    @Test func exactDecimalsAndRatios() {
        #expect(JSONObject.decimal("0.1") == Fraction(1, 10))
        #expect(JSONObject.decimal("-2.50") == Fraction(-5, 2))
        #expect(JSONObject.decimal("1.5e2") == Fraction(150))
        #expect(JSONObject.decimal("25E-1") == Fraction(5, 2))
        #expect(JSONObject.decimal("0.0000000001") == nil)
        #expect(JSONObject.decimal("1e40") == nil)
        #expect(JSONObject.ratio("30000/1001") == Fraction(30000, 1001))
        #expect(JSONObject.ratio("25") == Fraction(25))
        #expect(JSONObject.ratio("-1/2") == nil)
        #expect(JSONObject.ratio("1/") == nil)
        #expect(JSONObject.ratio("1/2/3") == nil)
        #expect(JSONObject.ratio("99999999999/1") == nil)
    }

    @Test func coloursFollowTheCanvasMatrix() {
        // BT.709 and BT.601 limited range: white 235/128/128, black 16/128/128, and pure red differs by matrix.
        #expect(RGBColor.black.ycbcr(.bt709) == (16, 128, 128))
        #expect(RGBColor(red: 255, green: 255, blue: 255).ycbcr(.bt601) == (235, 128, 128))
        #expect(RGBColor(red: 255, green: 0, blue: 0).ycbcr(.bt601) == (81, 90, 240))
        #expect(RGBColor(red: 255, green: 0, blue: 0).ycbcr(.bt709) == (63, 102, 240))
        #expect(RGBColor(hex: "#0a0B0c") == RGBColor(red: 10, green: 11, blue: 12))
        #expect(RGBColor(hex: "0a0b0c") == nil)
        #expect(RGBColor(hex: "#0a0b0g") == nil)
    }
}
