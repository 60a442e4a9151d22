import Timeline

/// Where a source picture lands on the canvas: the size libswscale scales it to (before rotation), and how the
/// scaled, flipped and rotated picture is cropped and positioned. Pure arithmetic; `PlaneWalk` does the copying.
///
/// All sizes and offsets are even, so the 4:2:0 chroma planes map with exactly half of every number.
public struct Placement: Sendable, Hashable {
    /// The size to scale the decoded picture to, in its own orientation.
    public let scaledWidth: Int
    public let scaledHeight: Int
    /// The visible part, in canvas pixels, and where it starts on the canvas.
    public let visibleWidth: Int
    public let visibleHeight: Int
    public let canvasX: Int
    public let canvasY: Int
    /// Where the visible part starts in the rotated picture (non-zero when `cover` crops).
    public let cropX: Int
    public let cropY: Int
    public let rotation: Timeline.Rotation
    public let flip: Timeline.Flip

    /// True when the picture leaves part of the canvas to the letterbox colour.
    public var isLetterboxed: Bool { canvasX > 0 || canvasY > 0 }

    public init(sourceWidth: Int, sourceHeight: Int, canvasWidth: Int, canvasHeight: Int,
                fit: Timeline.Fit, rotation: Timeline.Rotation, flip: Timeline.Flip) {
        let quarterTurn = rotation == .clockwise90 || rotation == .clockwise270
        let (rotatedWidth, rotatedHeight) = quarterTurn ? (sourceHeight, sourceWidth) : (sourceWidth, sourceHeight)
        let width: Int, height: Int
        switch fit {
        case .stretch:
            (width, height) = (canvasWidth, canvasHeight)
        case .contain, .cover:
            // Compare the aspect ratios exactly: canvasWidth/rotatedWidth vs canvasHeight/rotatedHeight.
            let widthBound = canvasWidth * rotatedHeight <= canvasHeight * rotatedWidth
            if widthBound == (fit == .contain) {
                width = canvasWidth
                height = Self.even(Double(canvasWidth) * Double(rotatedHeight) / Double(rotatedWidth),
                                   atLeast: fit == .cover ? canvasHeight : 2)
            } else {
                height = canvasHeight
                width = Self.even(Double(canvasHeight) * Double(rotatedWidth) / Double(rotatedHeight),
                                  atLeast: fit == .cover ? canvasWidth : 2)
            }
        }
        let clampedWidth = fit == .contain ? min(width, canvasWidth) : width
        let clampedHeight = fit == .contain ? min(height, canvasHeight) : height
        (scaledWidth, scaledHeight) = quarterTurn ? (clampedHeight, clampedWidth) : (clampedWidth, clampedHeight)
        visibleWidth = min(clampedWidth, canvasWidth)
        visibleHeight = min(clampedHeight, canvasHeight)
        canvasX = (canvasWidth - visibleWidth) / 4 * 2
        canvasY = (canvasHeight - visibleHeight) / 4 * 2
        cropX = (clampedWidth - visibleWidth) / 4 * 2
        cropY = (clampedHeight - visibleHeight) / 4 * 2
        self.rotation = rotation
        self.flip = flip
    }

    /// The nearest even number to `value`, not below `minimum` (rounded up to even).
    private static func even(_ value: Double, atLeast minimum: Int) -> Int {
        max(Int((value / 2).rounded()) * 2, (minimum + 1) / 2 * 2)
    }

    /// How to read plane `plane` (0 luma, 1–2 chroma at half size) of the scaled picture, stride `stride`, so that
    /// visible pixel (x, y) is `base + x·stepX + y·stepY`.
    func walk(plane: Int, stride: Int) -> PlaneWalk {
        let shift = plane == 0 ? 0 : 1
        let width = scaledWidth >> shift, height = scaledHeight >> shift
        let cropX = cropX >> shift, cropY = cropY >> shift
        // Rotated coordinates (u, v) = (cropX + x, cropY + y) back to the unrotated picture (a, b):
        // a = a0 + ax·x + ay·y, b = b0 + bx·x + by·y.
        var (a0, ax, ay, b0, bx, by): (Int, Int, Int, Int, Int, Int)
        switch rotation {
        case .none: (a0, ax, ay, b0, bx, by) = (cropX, 1, 0, cropY, 0, 1)
        // 90° clockwise moves (a, b) to (h − 1 − b, a): a = v, b = h − 1 − u.
        case .clockwise90: (a0, ax, ay, b0, bx, by) = (cropY, 0, 1, height - 1 - cropX, -1, 0)
        case .clockwise180: (a0, ax, ay, b0, bx, by) = (width - 1 - cropX, -1, 0, height - 1 - cropY, 0, -1)
        // 270° clockwise moves (a, b) to (b, w − 1 − a): a = w − 1 − v, b = u.
        case .clockwise270: (a0, ax, ay, b0, bx, by) = (width - 1 - cropY, 0, -1, cropX, 1, 0)
        }
        // The flip happens before the rotation, in the unrotated picture.
        if flip.contains(.horizontal) { (a0, ax, ay) = (width - 1 - a0, -ax, -ay) }
        if flip.contains(.vertical) { (b0, bx, by) = (height - 1 - b0, -bx, -by) }
        return PlaneWalk(base: b0 * stride + a0, stepX: bx * stride + ax, stepY: by * stride + ay)
    }
}

/// A linear walk over a plane: element (x, y) of the visible region is at `base + x·stepX + y·stepY`.
struct PlaneWalk: Hashable {
    let base: Int
    let stepX: Int
    let stepY: Int
}
