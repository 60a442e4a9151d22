/// What a wipe, a slide and a push are told besides their duration and easing: the luma map and its softness, and
/// which way the pictures move.
extension Timeline.Transition {
    /// Which way a linear wipe's edge, or a slide's or push's pictures, move (ffmpeg's `xfade=wipeleft`: the edge
    /// moves left, the incoming picture appearing on the right).
    public enum Direction: String, Sendable, Hashable, CaseIterable {
        case left, right, up, down
    }

    /// A luma-map wipe (MLT's `luma` transition): at progress p a pixel shows the incoming picture where its map
    /// value is below a threshold that sweeps the map's range, with a linear ramp `softness` wide.
    public struct Wipe: Sendable, Hashable {
        public enum Shape: Sendable, Hashable {
            /// A straight edge moving across the canvas (`xfade=wipeleft/wiperight/wipeup/wipedown`).
            case linear(Direction)
            /// A straight edge along the diagonal, from the corner opposite `towards`.
            case diagonal(Diagonal)
            /// A circle from the centre (`open`) or towards it (`close`).
            case iris(Opening)
            /// A hand sweeping round the centre from 12 o'clock.
            case clock(Turn)
            /// A five-pointed star, point up, from the centre or towards it.
            case star(Opening)
            /// A grayscale picture (PNG, JPEG, anything libavformat opens), scaled to the canvas once: its dark
            /// pixels switch first, as MLT's luma files.
            case image(path: String)
        }

        /// The corner a diagonal edge moves towards.
        public enum Diagonal: String, Sendable, Hashable, CaseIterable {
            case upLeft = "up-left", upRight = "up-right", downLeft = "down-left", downRight = "down-right"
        }

        public enum Opening: String, Sendable, Hashable, CaseIterable {
            case open, close
        }

        public enum Turn: String, Sendable, Hashable, CaseIterable {
            case clockwise, counterclockwise
        }

        public var shape: Shape
        /// Width of the ramp between outgoing and incoming, as a share of the map's range: 0 is a hard edge, 1 a
        /// ramp over the whole map.
        public var softness: Double
        /// Swaps the map's order: what switched first switches last.
        public var invert: Bool

        public init(shape: Shape = .linear(.left), softness: Double = 0, invert: Bool = false) {
            self.shape = shape
            self.softness = softness
            self.invert = invert
        }

        /// The shape names of the JSON format.
        public static let shapeNames = ["linear", "diagonal", "iris", "clock", "star"]
    }
}
