/// Where an overlay's corners are on each output frame (seed 002: per-frame corners from a tracker such as mocha):
/// keyed frames, linearly interpolated between keys, held before the first and after the last. Frame numbers count
/// output frames from the overlay's first one (0); coordinates are canvas pixels, origin top-left, x right, y down.
public enum CornerTrack: Sendable, Hashable {
    /// Keys written in the timeline, ascending by frame.
    case keys([CornerKey])
    /// A track file (CSV or JSON, see `CornerTrack.parse`), read when the overlay is first shown; relative to the
    /// timeline's directory.
    case file(String)
}

/// A point in canvas pixels.
public struct CornerPoint: Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// The four points the picture's corners go to, in the order trackers and CIPerspectiveTransform use: top left, top
/// right, bottom right, bottom left (clockwise on screen).
public struct Quad: Sendable, Hashable {
    public var topLeft: CornerPoint
    public var topRight: CornerPoint
    public var bottomRight: CornerPoint
    public var bottomLeft: CornerPoint

    public init(topLeft: CornerPoint, topRight: CornerPoint, bottomRight: CornerPoint, bottomLeft: CornerPoint) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
        self.bottomLeft = bottomLeft
    }

    /// From eight numbers: x, y of top left, top right, bottom right, bottom left.
    public init(_ c: [Double]) {
        precondition(c.count == 8)
        self.init(topLeft: CornerPoint(x: c[0], y: c[1]), topRight: CornerPoint(x: c[2], y: c[3]),
                  bottomRight: CornerPoint(x: c[4], y: c[5]), bottomLeft: CornerPoint(x: c[6], y: c[7]))
    }

    public var points: [CornerPoint] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// The point-wise linear interpolation a + (b − a)·t.
    public static func interpolate(_ a: Quad, _ b: Quad, _ t: Double) -> Quad {
        func mix(_ p: CornerPoint, _ q: CornerPoint) -> CornerPoint {
            CornerPoint(x: p.x + (q.x - p.x) * t, y: p.y + (q.y - p.y) * t)
        }
        return Quad(topLeft: mix(a.topLeft, b.topLeft), topRight: mix(a.topRight, b.topRight),
                    bottomRight: mix(a.bottomRight, b.bottomRight), bottomLeft: mix(a.bottomLeft, b.bottomLeft))
    }
}

/// One keyed frame of a corner track.
public struct CornerKey: Sendable, Hashable {
    /// Output frames from the overlay's first frame.
    public var frame: Int
    public var quad: Quad

    public init(frame: Int, quad: Quad) {
        self.frame = frame
        self.quad = quad
    }
}

extension CornerKey {
    /// The corners at `frame` from keys sorted by frame (at least one): the keys' own quads on keyed frames, the
    /// linear interpolation between the two keys around any other frame, the first (last) key's quad before (after).
    public static func quad(atFrame frame: Int, in keys: [CornerKey]) -> Quad {
        precondition(!keys.isEmpty)
        if frame <= keys[0].frame { return keys[0].quad }
        if frame >= keys[keys.count - 1].frame { return keys[keys.count - 1].quad }
        // The last key at or before `frame`: keys[low].frame ≤ frame < keys[low + 1].frame.
        var low = 0, high = keys.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if keys[middle].frame <= frame { low = middle } else { high = middle }
        }
        let a = keys[low], b = keys[high]
        return Quad.interpolate(a.quad, b.quad, Double(frame - a.frame) / Double(b.frame - a.frame))
    }
}
