/// The projective map of a `width`×`height` picture onto a quad: source corners (0, 0), (w, 0), (w, h), (0, h) go to
/// the quad's top left, top right, bottom right and bottom left (ffmpeg's `perspective` with sense=destination uses
/// the same corners: the picture spans [0, w] × [0, h], a pixel's index is its top-left coordinate).
///
/// Built as Heckbert's square-to-quad map (Fundamentals of Texture Mapping and Image Warping, 1989, §2.2.3) scaled
/// by 1/w, 1/h; the warp needs the inverse, canvas → source, which is the adjugate (a homography is defined up to a
/// scale factor, so the determinant is not divided out).
struct Homography: Equatable {
    /// Row-major 3×3 matrix, [x′, y′, w′] = m · [x, y, 1].
    var m: [Double]

    /// Source → canvas; nil when the quad is degenerate (three corners on a line: nothing to draw).
    init?(width: Int, height: Int, quad: Quad) {
        let p = quad.points
        let (x0, y0, x1, y1) = (p[0].x, p[0].y, p[1].x, p[1].y)
        let (x2, y2, x3, y3) = (p[2].x, p[2].y, p[3].x, p[3].y)
        let sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3
        var (a, b, c, d, e, f, g, h) = (0.0, 0.0, x0, 0.0, 0.0, y0, 0.0, 0.0)
        if sx == 0 && sy == 0 {
            (a, b, d, e) = (x1 - x0, x2 - x1, y1 - y0, y2 - y1) // a parallelogram: affine
        } else {
            let dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2
            let determinant = dx1 * dy2 - dx2 * dy1
            guard determinant != 0 else { return nil }
            g = (sx * dy2 - dx2 * sy) / determinant
            h = (dx1 * sy - sx * dy1) / determinant
            (a, b, d, e) = (x1 - x0 + g * x1, x3 - x0 + h * x3, y1 - y0 + g * y1, y3 - y0 + h * y3)
        }
        // Unit square → quad, then picture pixels → unit square: divide the u and v columns by w and h.
        let w = Double(width), hh = Double(height)
        m = [a / w, b / hh, c, d / w, e / hh, f, g / w, h / hh, 1]
        guard m.allSatisfy(\.isFinite), inverted != nil else { return nil }
    }

    private init(matrix: [Double]) {
        m = matrix
    }

    /// The inverse map (canvas → source), nil when singular.
    var inverted: Homography? {
        let (a, b, c, d, e, f, g, h, i) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let adjugate = [e * i - f * h, c * h - b * i, b * f - c * e,
                        f * g - d * i, a * i - c * g, c * d - a * f,
                        d * h - e * g, b * g - a * h, a * e - b * d]
        let determinant = a * adjugate[0] + b * adjugate[3] + c * adjugate[6]
        guard determinant != 0, determinant.isFinite else { return nil }
        return Homography(matrix: adjugate.map { $0 / determinant })
    }

    /// Where (x, y) goes; nil on the line at infinity.
    func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double)? {
        let w = m[6] * x + m[7] * y + m[8]
        guard w != 0 else { return nil }
        return ((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w)
    }
}
