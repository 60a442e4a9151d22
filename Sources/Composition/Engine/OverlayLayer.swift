#if canImport(Glibc)
import Glibc
#endif
import MediaCore
import MediaIO
import Timeline

/// One overlay while its readers are open: its picture (and mask) readers, its corner keys, and the scratch planes
/// the warp and the weights are computed in (kept from frame to frame, so drawing allocates nothing in steady state).
final class OverlayLayer {
    private(set) var index: Int
    let overlay: Timeline.Overlay
    private(set) var span: CompositionPlan.OverlaySpan
    let picture: OverlayReader
    let mask: OverlayReader?
    private let keys: [CornerKey]?
    private let canvasWidth: Int
    private let canvasHeight: Int
    private var weightRows: [UInt8] = []
    private var warped: PixelBuffer?
    private var warpedAlpha: [UInt8] = []
    private var warpedSpans: [OverlayKernels.ColumnSpan] = []

    init(index: Int, plan: CompositionPlan, matrix: YCbCrMatrix, resolve: (String) -> String, keys: [CornerKey]?,
         pool: FramePool) throws(CompositionError) {
        let overlay = plan.timeline.overlays[index]
        self.index = index
        self.overlay = overlay
        span = plan.overlaySpans[index]
        let canvas = plan.timeline.canvas
        canvasWidth = canvas.width
        canvasHeight = canvas.height
        self.keys = keys
        let size: Timeline.Overlay.Size? = switch overlay.geometry {
        case let .rectangle(_, _, size), let .cornerPin(_, size): size
        }
        picture = try OverlayReader(path: resolve(overlay.source), jsonPath: "$.overlays[\(index)].source",
                                    size: size, matrix: matrix, mask: false, pool: pool)
        if let mask = overlay.mask {
            self.mask = try OverlayReader(path: resolve(mask.source), jsonPath: "$.overlays[\(index)].mask.source",
                                          size: .init(width: canvas.width, height: canvas.height), matrix: matrix,
                                          mask: true, pool: pool)
        } else {
            self.mask = nil
        }
        // Pre-roll: decode the first frames shown.
        _ = try picture.frame(at: overlay.sourceStart)
        _ = try mask?.frame(at: overlay.mask!.sourceStart)
    }

    var framesDecoded: Int { picture.framesDecoded + (mask?.framesDecoded ?? 0) }

    /// After an edit that kept this overlay (`Engine.apply`): its new place in the list and its span.
    func renumber(_ index: Int, span: CompositionPlan.OverlaySpan) {
        self.index = index
        self.span = span
        picture.jsonPath = "$.overlays[\(index)].source"
        mask?.jsonPath = "$.overlays[\(index)].mask.source"
    }

    /// Draws the overlay onto `canvas` for the output frame at `passTime` (inside the overlay's span), whose index
    /// counted from the overlay's first frame is `localFrame`.
    func draw(onto canvas: inout PixelBuffer, passTime: Fraction, localFrame: Int) throws(CompositionError) {
        let elapsed = passTime - span.start
        let (image, alpha) = try picture.frame(at: overlay.sourceStart + elapsed)
        let maskPlane = try mask.map { reader throws(CompositionError) in
            try reader.frame(at: overlay.mask!.sourceStart + elapsed).picture.planes[0]
        }
        let opacity = UInt32((overlay.opacity * 255).rounded())
        switch overlay.geometry {
        case let .rectangle(x, y, _):
            // ffmpeg's overlay rounds the position down to the chroma grid: x & ~1.
            let left = x & ~1, top = y & ~1
            let region = Self.clip(x: left, y: top, width: image.width, height: image.height,
                                   canvasWidth: canvasWidth, canvasHeight: canvasHeight)
            guard !region.isEmpty else { return }
            let pictureX = region.x - left, pictureY = region.y - top
            let weights = OverlayKernels.Weights(alpha: alpha, alphaX: pictureX, alphaY: pictureY, opacity: opacity,
                                                 mask: maskPlane)
            OverlayKernels.blend(image, pictureX: pictureX, pictureY: pictureY, weights: weights, region: region,
                                 onto: &canvas, scratch: &weightRows)
        case .cornerPin:
            let quad = CornerKey.quad(atFrame: localFrame, in: keys ?? [])
            guard let forward = Homography(width: image.width, height: image.height, quad: quad),
                  let inverse = forward.inverted else { return } // a degenerate quad covers nothing
            let region = Self.boundingBox(quad, canvasWidth: canvasWidth, canvasHeight: canvasHeight)
            guard !region.isEmpty else { return }
            if warped.map({ $0.width < region.width || $0.height < region.height }) ?? true {
                warped = PixelBuffer(format: .i420, width: canvasWidth, height: canvasHeight)
            }
            OverlayKernels.warp(image, alpha: alpha, inverse: inverse, region: region, into: &warped!,
                                warpedAlpha: &warpedAlpha, spans: &warpedSpans)
            // The warped planes are region-sized at the top left of the scratch buffer.
            let coverage = PixelBuffer.Plane(bytes: warpedAlpha, bytesPerRow: region.width)
            let weights = OverlayKernels.Weights(alpha: coverage, opacity: opacity, mask: maskPlane)
            OverlayKernels.blend(warped!, pictureX: 0, pictureY: 0, weights: weights, region: region,
                                 spans: warpedSpans, onto: &canvas, scratch: &weightRows)
        }
    }

    /// The part of a width×height rectangle at (x, y) that lies on the canvas (all even: x, y and the sides are).
    static func clip(x: Int, y: Int, width: Int, height: Int, canvasWidth: Int, canvasHeight: Int) -> OverlayKernels.Region {
        let left = max(x, 0), top = max(y, 0)
        let right = min(x + width, canvasWidth), bottom = min(y + height, canvasHeight)
        return .init(x: left, y: top, width: (right - left) & ~1, height: (bottom - top) & ~1)
    }

    /// The quad's bounding box on the canvas, widened to even coordinates.
    static func boundingBox(_ quad: Quad, canvasWidth: Int, canvasHeight: Int) -> OverlayKernels.Region {
        let xs = quad.points.map(\.x), ys = quad.points.map(\.y)
        let left = max(Int(xs.min()!.rounded(.down)), 0) & ~1
        let top = max(Int(ys.min()!.rounded(.down)), 0) & ~1
        let right = min(Int(xs.max()!.rounded(.up)) + 1, canvasWidth)
        let bottom = min(Int(ys.max()!.rounded(.up)) + 1, canvasHeight)
        let width = right - left, height = bottom - top
        guard width > 0, height > 0 else { return .init(x: 0, y: 0, width: 0, height: 0) }
        return .init(x: left, y: top, width: min((width + 1) & ~1, canvasWidth - left),
                     height: min((height + 1) & ~1, canvasHeight - top))
    }

    func release() {
        picture.release()
        mask?.release()
    }
}

/// Corner-track files: read whole (bounded), parsed by `CornerTrack.parseFile`.
enum CornerTrackFile {
    static func read(_ path: String, name: String, jsonPath: String) throws(CompositionError) -> [CornerKey] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CompositionError(code: .source, reason: "corner track \(name): \(String(cString: strerror(errno)))",
                                   path: jsonPath)
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CompositionError(code: .source, reason: "corner track \(name): \(String(cString: strerror(errno)))",
                                       path: jsonPath)
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= TimelineLimits.maximumTrackFileBytes else {
                throw CompositionError(code: .limitExceeded,
                                       reason: "corner track \(name) is larger than \(TimelineLimits.maximumTrackFileBytes) bytes",
                                       path: jsonPath)
            }
        }
        do {
            return try CornerTrack.parseFile(bytes, name: name, path: jsonPath)
        } catch {
            throw CompositionError(error)
        }
    }
}
