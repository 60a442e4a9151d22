extension Timeline {
    /// A picture above the sequence (seed 003's overlays, seed 002's template): a still image or a video, with its
    /// own time range on the output, placed in a rectangle or pinned onto four moving corners, made more or less
    /// transparent by its own alpha, an `opacity` and an optional `mask`. Overlays are drawn in order, each above
    /// the ones before it.
    public struct Overlay: Sendable, Hashable {
        /// An image (PNG with or without alpha, JPEG…) or a video file (with alpha where the file has it: qtrle,
        /// PNG-in-MOV, yuva420p…; otherwise opaque); anything libavformat opens.
        public var source: String
        /// Seconds into a video source for the overlay's first frame (a still has only one frame).
        public var sourceStart: Fraction
        /// Output seconds from the start of a pass at which the overlay appears.
        public var start: Fraction
        /// How long it stays, in output seconds; nil: to the end of the pass. A video that ends sooner holds its
        /// last frame.
        public var duration: Fraction?
        public var geometry: Geometry
        /// 0 (invisible) … 1 (the overlay's own alpha).
        public var opacity: Double
        public var mask: Mask?

        public init(source: String, sourceStart: Fraction = .zero, start: Fraction = .zero, duration: Fraction? = nil,
                    geometry: Geometry, opacity: Double = 1, mask: Mask? = nil) {
            self.source = source
            self.sourceStart = sourceStart
            self.start = start
            self.duration = duration
            self.geometry = geometry
            self.opacity = opacity
            self.mask = mask
        }

        public enum Geometry: Sendable, Hashable {
            /// Top-left corner at (x, y) on the canvas (may lie outside it; rounded down to even numbers as
            /// ffmpeg's `overlay` does for 4:2:0), scaled to `size` when given.
            case rectangle(x: Int, y: Int, size: Size?)
            /// The picture's corners mapped onto a quadrilateral per output frame (a homography), the corners from
            /// a track. `size`, when given, scales the picture first (sharper than sampling a large picture down).
            case cornerPin(CornerTrack, size: Size?)
        }

        /// Even width and height in `TimelineLimits.overlaySides`.
        public struct Size: Sendable, Hashable {
            public var width: Int
            public var height: Int

            public init(width: Int, height: Int) {
                self.width = width
                self.height = height
            }
        }

        /// A grayscale image or video in output coordinates, stretched to the canvas: white shows the overlay, black
        /// keeps the frame below (seed 002's occluding hand), grey mixes. Only its luma counts.
        public struct Mask: Sendable, Hashable {
            public var source: String
            /// Seconds into a video mask at the overlay's first frame.
            public var sourceStart: Fraction

            public init(source: String, sourceStart: Fraction = .zero) {
                self.source = source
                self.sourceStart = sourceStart
            }
        }
    }
}
