/// A versioned edit: a canvas and a sequence of items (clips, stills, solid colours) with transitions between
/// neighbours, optionally looping. Built from JSON by `Timeline.parse` or in Swift by an embedder; planned by
/// `CompositionPlan`.
///
/// Times are exact fractions of a second. A clip's `in` and `duration` are in the clip's own time (the part of the
/// file used); it occupies `duration / speed` on the output. A still or colour item occupies `duration`.
public struct Timeline: Sendable, Hashable {
    /// The document version this build reads and writes.
    public static let currentVersion = 1

    public var canvas: Canvas
    public var items: [Item]
    /// Repeat the whole sequence forever, timestamps continuing.
    public var loop: Bool
    /// Pictures above the sequence, each with its own time range; later ones are drawn above earlier ones.
    public var overlays: [Overlay]

    public init(canvas: Canvas, items: [Item], loop: Bool = false, overlays: [Overlay] = []) {
        self.canvas = canvas
        self.items = items
        self.loop = loop
        self.overlays = overlays
    }

    public struct Canvas: Sendable, Hashable {
        /// Even, `TimelineLimits.canvasSides`.
        public var width: Int
        public var height: Int
        /// Frames per second: the exact output grid k / frameRate.
        public var frameRate: Fraction
        public var background: RGBColor

        public init(width: Int, height: Int, frameRate: Fraction, background: RGBColor = .black) {
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.background = background
        }
    }

    public struct Item: Sendable, Hashable {
        public enum Content: Sendable, Hashable {
            /// A video file (anything libavformat opens) from `in` (seconds after its first frame).
            case clip(source: String, in: Fraction)
            /// A PNG or JPEG (any image libavformat opens), decoded and converted once.
            case still(source: String)
            case color(RGBColor)
        }

        public var content: Content
        /// For a clip, seconds of the source used; for a still or colour, seconds on the output.
        public var duration: Fraction
        /// Clips only: source seconds per output second (2 plays twice as fast, 1/2 half as fast).
        public var speed: Fraction
        /// Clips only: play the used part backwards.
        public var reverse: Bool
        public var flip: Flip
        public var rotation: Rotation
        public var fit: Fit
        /// The colour around a `contain` picture; nil uses the canvas background.
        public var letterbox: RGBColor?
        /// The transition into the next item.
        public var transition: Transition?

        public init(
            content: Content, duration: Fraction, speed: Fraction = .one, reverse: Bool = false, flip: Flip = [],
            rotation: Rotation = .none, fit: Fit = .contain, letterbox: RGBColor? = nil, transition: Transition? = nil
        ) {
            self.content = content
            self.duration = duration
            self.speed = speed
            self.reverse = reverse
            self.flip = flip
            self.rotation = rotation
            self.fit = fit
            self.letterbox = letterbox
            self.transition = transition
        }

        /// How long the item lasts on the output.
        public var outputDuration: Fraction {
            if case .clip = content { return duration / speed }
            return duration
        }

        /// The file behind the item, if any.
        public var source: String? {
            switch content {
            case let .clip(source, _), let .still(source): source
            case .color: nil
            }
        }
    }

    public struct Flip: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Mirror left ↔ right.
        public static let horizontal = Flip(rawValue: 1)
        /// Mirror top ↔ bottom.
        public static let vertical = Flip(rawValue: 2)
    }

    /// Clockwise rotation applied before fitting (and after flipping).
    public enum Rotation: Int, Sendable, Hashable, CaseIterable {
        case none = 0
        case clockwise90 = 90
        case clockwise180 = 180
        case clockwise270 = 270
    }

    public enum Fit: String, Sendable, Hashable, CaseIterable {
        /// The whole picture, scaled to fit; the rest of the canvas is the letterbox colour.
        case contain
        /// The canvas filled, the picture scaled to cover it and centred (the overflow cropped).
        case cover
        /// Scaled to the canvas exactly, aspect ratio not kept.
        case stretch
    }

    public struct Transition: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// Cross dissolve: out = (1 − p)·outgoing + p·incoming (ffmpeg's `xfade=fade`).
            case dissolve
            /// Through black: the outgoing picture goes to black, the incoming one comes from it (`xfade=fadeblack`).
            case fadeblack
            /// A luma-map wipe with softness (`wipe`: linear, diagonal, iris, clock, star, or a grayscale image).
            case wipe
            /// The incoming picture slides in over the outgoing one, which stays (`xfade=cover*` of later FFmpegs).
            case slide
            /// The incoming picture pushes the outgoing one out, both moving (`xfade=slideleft/…`).
            case push
        }

        public enum Easing: String, Sendable, Hashable, CaseIterable {
            case linear
            /// Smoothstep: p² (3 − 2p).
            case easeInOut = "ease-in-out"

            public func apply(_ progress: Double) -> Double {
                switch self {
                case .linear: progress
                case .easeInOut: progress * progress * (3 - 2 * progress)
                }
            }
        }

        public var kind: Kind
        /// Seconds of overlap on the output; the outgoing item's last and the incoming item's first seconds.
        public var duration: Fraction
        public var easing: Easing
        /// `wipe` only (nil otherwise): the map and its softness.
        public var wipe: Wipe?
        /// `slide` and `push` only (nil otherwise): which way the pictures move.
        public var direction: Direction?

        /// A wipe without `wipe` is a hard linear wipe to the left; a slide or push without `direction` moves left.
        public init(kind: Kind, duration: Fraction, easing: Easing = .linear, wipe: Wipe? = nil,
                    direction: Direction? = nil) {
            self.kind = kind
            self.duration = duration
            self.easing = easing
            self.wipe = kind == .wipe ? wipe ?? Wipe() : nil
            self.direction = kind == .slide || kind == .push ? direction ?? .left : nil
        }
    }
}
