#if canImport(Glibc)
import Glibc
#endif

/// A video stream's display matrix (ISO/IEC 14496-12 §8.3.2 `tkhd` `matrix`, libav's `AV_PKT_DATA_DISPLAYMATRIX`
/// side data): how a player transforms the decoded picture to show it, here reduced to the turn that shows it
/// upright, as ffmpeg's `-autorotate` does (fftools `get_rotation`). Pure.
///
/// The nine values are a, b, u, c, d, v, x, y, w: a, b, c, d, x and y in 16.16 fixed point, u, v and w in 2.30;
/// a point (p, q) of the picture is shown at (a·p + c·q + x, b·p + d·q + y). Only the rotation is read: a mirrored
/// matrix (negative determinant) is shown by libav's own rules as its rotation part only, like ffmpeg 5.1 does.
public struct DisplayMatrix: Sendable, Hashable {
    public let values: [Int32]

    /// nil unless exactly nine values.
    public init?(_ values: [Int32]) {
        guard values.count == 9 else { return nil }
        self.values = values
    }

    /// The identity matrix (no rotation).
    public static let identity = DisplayMatrix([0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000])!

    /// The matrix that shows a picture turned `degrees` clockwise (what `ffmpeg -display_rotation -degrees` of later
    /// versions writes, and an iPhone's portrait `tkhd`).
    public static func clockwise(_ degrees: Int) -> DisplayMatrix {
        // (cos θ, sin θ; −sin θ, cos θ) for a clockwise turn θ on a screen whose y axis points down.
        let (cos, sin): (Int32, Int32) = switch ((degrees % 360) + 360) % 360 {
        case 90: (0, 1)
        case 180: (-1, 0)
        case 270: (0, -1)
        default: (1, 0)
        }
        return DisplayMatrix([cos << 16, sin << 16, 0, -sin << 16, cos << 16, 0, 0, 0, 0x4000_0000])!
    }

    /// The clockwise turn in degrees, [0, 360), that shows the picture upright: libav's `av_display_rotation_get`
    /// negated and rounded to a whole degree; nil when the matrix has no rotation part (a zero column).
    public var clockwiseDegrees: Int? {
        let a = Double(values[0]) / 65536, b = Double(values[1]) / 65536
        let c = Double(values[3]) / 65536, d = Double(values[4]) / 65536
        let scaleX = (a * a + c * c).squareRoot(), scaleY = (b * b + d * d).squareRoot()
        guard scaleX > 0, scaleY > 0 else { return nil }
        // av_display_rotation_get: −atan2(b / scaleY, a / scaleX) in degrees; get_rotation negates and rounds it.
        let degrees = Int((atan2(b / scaleY, a / scaleX) * 180 / .pi).rounded())
        return ((degrees % 360) + 360) % 360
    }

    /// The quarter turn (0, 90, 180 or 270 clockwise) that shows the picture upright, when the rotation is within a
    /// degree of one (0 for a matrix without a rotation part, which ffmpeg leaves alone too); nil for other angles,
    /// which ffmpeg turns with its `rotate` filter and rtenc does not.
    public var quarterTurn: Int? {
        guard let degrees = clockwiseDegrees else { return 0 }
        let nearest = (degrees + 45) / 90 * 90 % 360
        let distance = min(abs(degrees - nearest), 360 - abs(degrees - nearest))
        return distance <= 1 ? nearest : nil
    }
}
