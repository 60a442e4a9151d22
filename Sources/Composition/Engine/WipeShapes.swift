#if canImport(Glibc)
import Glibc
#endif
import Timeline

/// The analytic luma maps: for each shape, the order in [0, 1] (1 is clamped to the map's 65535) in which pixel (x, y) of a width×height canvas switches
/// to the incoming picture (lower first). Pure, so each shape is tested by its own properties. `close` and
/// `counterclockwise` are the reversed orders of `open` and `clockwise` (`isReversed`).
enum WipeShapes {
    typealias Wipe = Timeline.Transition.Wipe

    static func order(_ shape: Wipe.Shape, width: Int, height: Int) -> (Int, Int) -> Double {
        let w = Double(width), h = Double(height)
        switch shape {
        case let .linear(direction):
            // xfade's wipes: wipeleft shows the incoming picture where x > ⌊W·(1 − p)⌋, i.e. (W − x) / W < p (the
            // first column's 1 becomes 65535: it switches at p = 1); wiperight where x ≤ ⌊W·p⌋, i.e. x / W < p but
            // for xfade's own p = 0 frame, which shows column 0 of the incoming picture already (`x > z ? a : b`
            // with z = 0). Up and down likewise with rows.
            switch direction {
            case .left: return { x, _ in Double(width - x) / w }
            case .right: return { x, _ in Double(x) / w }
            case .up: return { _, y in Double(height - y) / h }
            case .down: return { _, y in Double(y) / h }
            }
        case let .diagonal(corner):
            // The mean of two linear orders at pixel centres: the edge runs corner to corner. (0.5 + 0.5) / 2 < 1.
            let leftToRight = corner == .upRight || corner == .downRight
            let topToBottom = corner == .downLeft || corner == .downRight
            return { x, y in
                let u = (Double(leftToRight ? x : width - 1 - x) + 0.5) / w
                let v = (Double(topToBottom ? y : height - 1 - y) + 0.5) / h
                return (u + v) / 2
            }
        case .iris:
            // Distance from the centre over the half diagonal (pixel centres are inside it, so below 1).
            let radius = (w * w + h * h).squareRoot() / 2
            return { x, y in
                let distance = Self.centred(x, y, w, h)
                return (distance.dx * distance.dx + distance.dy * distance.dy).squareRoot() / radius
            }
        case .clock:
            // The angle from 12 o'clock, clockwise on the screen (y grows downwards), over a full turn.
            return { x, y in
                let distance = Self.centred(x, y, w, h)
                var angle = atan2(distance.dx, -distance.dy)
                if angle < 0 { angle += 2 * .pi }
                return min(angle / (2 * .pi), Self.belowOne)
            }
        case .star:
            return Self.star(w, h)
        case .image:
            preconditionFailure("an image map is read by LumaMap.image, not computed")
        }
    }

    /// The largest Double below 1.
    static let belowOne = 1.0.nextDown

    /// True for the shapes whose map is the reverse of another's: iris and star closing, the clock turning
    /// counterclockwise (its hand starts at 12 and goes left).
    static func isReversed(_ shape: Wipe.Shape) -> Bool {
        switch shape {
        case .iris(.close), .star(.close), .clock(.counterclockwise): true
        default: false
        }
    }

    /// Pixel (x, y)'s centre relative to the canvas's centre.
    static func centred(_ x: Int, _ y: Int, _ w: Double, _ h: Double) -> (dx: Double, dy: Double) {
        (Double(x) + 0.5 - w / 2, Double(y) + 0.5 - h / 2)
    }

    /// A regular five-pointed star, point up, scaled about the centre: a pixel's order is the scale at which the
    /// star's outline passes through it, over the scale at which the star covers the whole canvas.
    /// Per 36° sector of the unit star, the edge from vertex A to vertex B and A × E. The outline: outer vertices
    /// at radius 1, every 72° from straight up, inner vertices at radius sin 18° / sin 54° (the regular
    /// pentagram's) half-way between. The same for every canvas, so made once per process rather than per map
    /// (two arrays each map allocated: the map benchmark's malloc threshold).
    private static let starEdges: [(ex: Double, ey: Double, cross: Double)] = {
        let inner = sin(Double.pi / 10) / sin(3 * Double.pi / 10)
        let vertices: [(x: Double, y: Double)] = (0...10).map { index in
            let angle = -Double.pi / 2 + Double(index) * Double.pi / 5
            let radius = index % 2 == 0 ? 1 : inner
            return (radius * cos(angle), radius * sin(angle))
        }
        return (0..<10).map { sector in
            let (a, b) = (vertices[sector], vertices[sector + 1])
            let (ex, ey) = (b.x - a.x, b.y - a.y)
            return (ex, ey, a.x * ey - a.y * ex)
        }
    }()

    static func star(_ w: Double, _ h: Double) -> (Int, Int) -> Double {
        let edges = starEdges
        // The outline's radius in direction (dx, dy): where the ray meets the edge of its 36° sector.
        func outline(_ dx: Double, _ dy: Double) -> Double {
            var angle = atan2(dy, dx) + Double.pi / 2 // from straight up, clockwise on the screen
            if angle < 0 { angle += 2 * .pi }
            let sector = min(Int(angle / (Double.pi / 5)), 9)
            let edge = edges[sector]
            let length = (dx * dx + dy * dy).squareRoot()
            // Ray t·(dx, dy)/length meets A + s·E: t = (A × E) / (D × E).
            return edge.cross / ((dx / length) * edge.ey - (dy / length) * edge.ex)
        }
        func ratio(_ x: Int, _ y: Int) -> Double {
            let distance = centred(x, y, w, h)
            let length = (distance.dx * distance.dx + distance.dy * distance.dy).squareRoot()
            return length == 0 ? 0 : length / outline(distance.dx, distance.dy)
        }
        // The scale covering the canvas: the largest distance-over-outline on the canvas's border (along any ray
        // the ratio grows with the distance, so the border holds the maximum), a little more to stay below 1.
        var cover = 0.0
        let (width, height) = (Int(w), Int(h))
        for x in 0..<width {
            for y in [0, height - 1] { cover = max(cover, ratio(x, y)) }
        }
        for y in 0..<height {
            for x in [0, width - 1] { cover = max(cover, ratio(x, y)) }
        }
        cover *= 1 + 1e-9
        return { x, y in min(ratio(x, y) / cover, belowOne) }
    }
}
