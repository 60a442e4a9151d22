import MediaCore
import Testing
@testable import Composition

/// The overlay kernels by their edges, against plain per-pixel references written here: alpha and mask 0 and 255,
/// opacity, the 2×2 chroma weight, the columns a corner pin limits the blend to, and the warp's fast path (spans of an
/// interpolated map) against the exact per-pixel map, including quads partly off the canvas and twisted ones.
@Suite struct OverlayKernelTests {
    /// A flat I420 buffer: luma, Cb, Cr.
    static func flat(_ width: Int, _ height: Int, _ values: [UInt8]) -> PixelBuffer {
        var buffer = PixelBuffer(format: .i420, width: width, height: height)
        PlaneKernels.fill(&buffer, with: values)
        return buffer
    }

    /// A deterministic texture (an LCG per sample), so a wrong sample position shows.
    static func texture(_ width: Int, _ height: Int, seed: UInt32 = 1) -> PixelBuffer {
        var buffer = PixelBuffer(format: .i420, width: width, height: height)
        var state = seed
        for plane in 0..<3 {
            for index in buffer.planes[plane].bytes.indices {
                state = state &* 1_664_525 &+ 1_013_904_223
                buffer.planes[plane].bytes[index] = UInt8(truncatingIfNeeded: state >> 24)
            }
        }
        return buffer
    }

    /// (a·(255 − w) + b·w) / 255 rounded, in floating point.
    static func mixed(_ a: Int, _ b: Int, _ w: Int) -> UInt8 {
        UInt8((Double(a * (255 - w) + b * w) / 255).rounded())
    }

    static func product(_ a: Int, _ b: Int) -> Int { Int((Double(a * b) / 255).rounded()) }

    @Test func divide255IsRoundedDivisionForEveryProduct() {
        for value in 0...(255 * 255) {
            let expected = UInt8((Double(value) / 255).rounded())
            #expect(OverlayKernels.divide255(UInt16(value)) == expected, "\(value)")
            if OverlayKernels.divide255(UInt16(value)) != expected { return }
        }
    }

    /// (alpha, opacity, mask): nil alpha is an opaque picture, nil mask none.
    static let weightCases: [(alpha: UInt8?, opacity: UInt32, mask: UInt8?)] = [
        (nil, 255, nil), (nil, 0, nil), (nil, 128, nil),
        (0, 255, nil), (255, 255, nil), (128, 255, nil), (1, 255, nil), (254, 255, nil),
        (nil, 255, 0), (nil, 255, 255), (nil, 255, 77), (nil, 100, 200),
        (255, 255, 0), (0, 255, 255), (200, 128, 100), (255, 0, 255), (37, 250, 3),
    ]

    @Test(arguments: weightCases)
    func blendWeighsByAlphaOpacityAndMask(_ testCase: (alpha: UInt8?, opacity: UInt32, mask: UInt8?)) {
        let (width, height) = (12, 6)
        let picture = Self.flat(width, height, [235, 240, 16])
        var canvas = Self.flat(width, height, [16, 16, 240])
        let alpha = testCase.alpha.map { PixelBuffer.Plane(bytes: .init(repeating: $0, count: width * height), bytesPerRow: width) }
        let mask = testCase.mask.map { PixelBuffer.Plane(bytes: .init(repeating: $0, count: width * height), bytesPerRow: width) }
        var scratch: [UInt8] = []
        OverlayKernels.blend(picture, pictureX: 0, pictureY: 0,
                             weights: .init(alpha: alpha, opacity: testCase.opacity, mask: mask),
                             region: .init(x: 0, y: 0, width: width, height: height), onto: &canvas, scratch: &scratch)
        var weight = Self.product(Int(testCase.alpha ?? 255), Int(testCase.opacity))
        if let mask = testCase.mask { weight = Self.product(weight, Int(mask)) }
        #expect(canvas.planes[0].bytes.allSatisfy { $0 == Self.mixed(16, 235, weight) }, "\(testCase): weight \(weight)")
        #expect(canvas.planes[1].bytes.allSatisfy { $0 == Self.mixed(16, 240, weight) })
        #expect(canvas.planes[2].bytes.allSatisfy { $0 == Self.mixed(240, 16, weight) })
        if weight == 0 { #expect(canvas.planes[0].bytes.allSatisfy { $0 == 16 }) }
        if weight == 255 { #expect(canvas.planes[0].bytes.allSatisfy { $0 == 235 }) }
    }

    /// A chroma sample takes the truncated mean of its four luma weights; the picture is read from its offset and
    /// the canvas written at the region only.
    @Test func chromaTakesTheMeanOfItsFourWeightsAndTheRegionIsRespected() {
        let picture = Self.texture(8, 8)
        var canvas = Self.flat(16, 12, [50, 60, 70])
        // Alpha of the 4×4 region read at (2, 2) of an 8×8 plane: the first block (0, 255, 255, 255).
        var alphaBytes = [UInt8](repeating: 255, count: 64)
        alphaBytes[2 * 8 + 2] = 0
        let alpha = PixelBuffer.Plane(bytes: alphaBytes, bytesPerRow: 8)
        var scratch: [UInt8] = []
        let region = OverlayKernels.Region(x: 6, y: 4, width: 4, height: 4)
        OverlayKernels.blend(picture, pictureX: 2, pictureY: 2, weights: .init(alpha: alpha, alphaX: 2, alphaY: 2),
                             region: region, onto: &canvas, scratch: &scratch)
        for y in 0..<12 {
            for x in 0..<16 {
                let got = canvas.planes[0].bytes[y * 16 + x]
                guard (6..<10).contains(x), (4..<8).contains(y), x != 6 || y != 4 else {
                    #expect(got == 50, "(\(x), \(y))")
                    continue
                }
                #expect(got == picture.planes[0].bytes[(y - 4 + 2) * 8 + x - 6 + 2], "(\(x), \(y))")
            }
        }
        let cb = canvas.planes[1].bytes, pictureCb = picture.planes[1].bytes
        #expect(cb[2 * 8 + 3] == Self.mixed(60, Int(pictureCb[1 * 4 + 1]), 765 / 4)) // (0 + 3·255) >> 2 = 191
        #expect(cb[2 * 8 + 4] == pictureCb[1 * 4 + 2])
        #expect(cb[1 * 8 + 3] == 60 && cb[2 * 8 + 5] == 60)
    }

    @Test func spansLimitTheColumnsTouched() {
        let picture = Self.flat(8, 4, [200, 100, 100])
        var canvas = Self.flat(8, 4, [20, 128, 128])
        var scratch: [UInt8] = []
        OverlayKernels.blend(picture, pictureX: 0, pictureY: 0, weights: .init(),
                             region: .init(x: 0, y: 0, width: 8, height: 4),
                             spans: [.init(start: 2, end: 6), .init(start: 6, end: 2)], onto: &canvas, scratch: &scratch)
        let rows = (0..<4).map { Array(canvas.planes[0].bytes[$0 * 8..<($0 + 1) * 8]) }
        #expect(rows[0] == [20, 20, 200, 200, 200, 200, 20, 20])
        #expect(rows[1] == rows[0])
        #expect(rows[2] == [UInt8](repeating: 20, count: 8) && rows[3] == rows[2]) // an empty span
        #expect(Array(canvas.planes[1].bytes[0..<4]) == [128, 100, 100, 128])
    }

    // MARK: - Warp

    /// The warp the slow, obvious way: each canvas pixel through the inverse map, u and v rounded to 1/256 pixel,
    /// inside the picture or not, bilinear with clamped neighbours.
    static func referenceWarp(_ picture: PixelBuffer, quad: Quad, region: OverlayKernels.Region)
        -> (luma: [UInt8?], chroma: [[UInt8?]]) {
        let inverse = Homography(width: picture.width, height: picture.height, quad: quad)!.inverted!
        func sample(_ plane: Int, _ u: Int, _ v: Int) -> UInt8 {
            let width = picture.rowBytes(ofPlane: plane), height = picture.rows(ofPlane: plane)
            let stride = picture.planes[plane].bytesPerRow, bytes = picture.planes[plane].bytes
            func at(_ x: Int, _ y: Int) -> Int { Int(bytes[min(max(y, 0), height - 1) * stride + min(max(x, 0), width - 1)]) }
            let (x0, y0, fu, fv) = (u >> 8, v >> 8, u & 255, v & 255)
            let top = at(x0, y0) * (256 - fu) + at(x0 + 1, y0) * fu
            let bottom = at(x0, y0 + 1) * (256 - fu) + at(x0 + 1, y0 + 1) * fu
            return UInt8((top * (256 - fv) + bottom * fv + 32768) >> 16)
        }
        func map(_ x: Int, _ y: Int) -> (Int, Int)? {
            guard let (u, v) = inverse.apply(Double(x), Double(y)) else { return nil }
            return (Int((u * 256 + 0.5).rounded(.down)), Int((v * 256 + 0.5).rounded(.down)))
        }
        var luma = [UInt8?](repeating: nil, count: region.width * region.height)
        for y in 0..<region.height {
            for x in 0..<region.width {
                guard let (u, v) = map(region.x + x, region.y + y), u >= 0, v >= 0,
                      u < picture.width * 256, v < picture.height * 256 else { continue }
                luma[y * region.width + x] = sample(0, u, v)
            }
        }
        let chroma = (1...2).map { plane in
            (0..<(region.height / 2 * region.width / 2)).map { index -> UInt8? in
                let x = index % (region.width / 2), y = index / (region.width / 2)
                let block = [(0, 0), (1, 0), (0, 1), (1, 1)].map { luma[(2 * y + $0.1) * region.width + 2 * x + $0.0] }
                guard block.contains(where: { $0 != nil }), let (u, v) = map(region.x + 2 * x, region.y + 2 * y) else {
                    return nil
                }
                return sample(plane, u >> 1, v >> 1)
            }
        }
        return (luma, chroma)
    }

    /// (name, picture size, canvas size, quad TL TR BR BL)
    static let warpCases: [(String, Int, Int, Int, Int, Quad)] = [
        ("identity at an offset", 64, 48, 96, 64, Quad([10, 6, 74, 6, 74, 54, 10, 54])),
        ("scaled up three times", 32, 24, 96, 72, Quad([0, 0, 96, 0, 96, 72, 0, 72])),
        ("perspective", 80, 60, 96, 64, Quad([5, 3, 90, 10, 80, 60, 12, 55])),
        ("rotated", 60, 40, 96, 96, Quad([48, 2, 94, 40, 50, 90, 3, 50])),
        ("partly off the canvas", 80, 60, 96, 64, Quad([-30, -20, 70, -10, 60, 50, -20, 40])),
        ("off the right and bottom", 80, 60, 96, 64, Quad([40, 30, 130, 25, 140, 100, 35, 90])),
        ("strong perspective at 720p", 640, 360, 1280, 720, Quad([300, 40, 980, 40, 1270, 710, 10, 700])),
        ("tiny", 3, 3, 32, 32, Quad([4, 4, 20, 6, 18, 22, 5, 20])),
        ("twisted (a bow tie)", 40, 40, 64, 64, Quad([5, 5, 60, 60, 60, 5, 5, 60])),
    ]

    @Test(arguments: warpCases)
    func warpMatchesThePerPixelMap(_ testCase: (String, Int, Int, Int, Int, Quad)) throws {
        let (name, width, height, canvasWidth, canvasHeight, quad) = testCase
        let picture = Self.texture(width, height, seed: 7)
        guard let forward = Homography(width: width, height: height, quad: quad) else {
            Issue.record("\(name): no homography")
            return
        }
        let region = OverlayLayer.boundingBox(quad, canvasWidth: canvasWidth, canvasHeight: canvasHeight)
        try #require(!region.isEmpty)
        var warped = PixelBuffer(format: .i420, width: canvasWidth, height: canvasHeight)
        var coverage: [UInt8] = [], spans: [OverlayKernels.ColumnSpan] = []
        OverlayKernels.warp(picture, alpha: nil, inverse: try #require(forward.inverted), region: region,
                            into: &warped, warpedAlpha: &coverage, spans: &spans)
        let reference = Self.referenceWarp(picture, quad: quad, region: region)
        var coverageMismatches = 0, off = 0, worst = 0
        for y in 0..<region.height {
            for x in 0..<region.width {
                let want = reference.luma[y * region.width + x], cover = coverage[y * region.width + x]
                if (want != nil) != (cover == 255) { coverageMismatches += 1; continue }
                guard let want else { continue }
                let span = spans[y / 2]
                #expect(span.start <= x && x < span.end, "\(name): (\(x), \(y)) covered outside its span")
                let difference = abs(Int(warped.planes[0].bytes[y * warped.planes[0].bytesPerRow + x]) - Int(want))
                worst = max(worst, difference)
                off += difference
            }
        }
        let covered = reference.luma.compactMap { $0 }.count
        // The inside test is the same arithmetic, give or take rounding at exactly half a 1/256 pixel. Inside, the
        // interpolated map is within 1/512 pixel of the exact one: on this noise (neighbours differ by up to 255) a
        // rounding to the other 1/256 moves a sample by a code value or two.
        #expect(coverageMismatches <= covered / 1000, "\(name): \(coverageMismatches) of \(covered) differ in coverage")
        let mean = Double(off) / Double(max(covered, 1))
        #expect(worst <= 2 && mean < 0.25, "\(name): mean difference \(mean), worst \(worst) over \(covered)")
        if name.hasPrefix("identity") { #expect(off == 0 && coverageMismatches == 0) }
        for (index, plane) in reference.chroma.enumerated() {
            let stride = warped.planes[index + 1].bytesPerRow
            var chromaWorst = 0
            for (offset, want) in plane.enumerated() {
                guard let want else { continue }
                let x = offset % (region.width / 2), y = offset / (region.width / 2)
                let d = abs(Int(warped.planes[index + 1].bytes[y * stride + x]) - Int(want))
                chromaWorst = max(chromaWorst, d)
            }
            #expect(chromaWorst <= 2, "\(name): chroma plane \(index + 1) off by \(chromaWorst)")
        }
    }

    /// Quads with three corners on a line, or all on one point, have no homography: nothing is drawn (OverlayLayer
    /// returns before the kernels), never a division by zero inside them.
    @Test(arguments: [Quad([0, 0, 10, 10, 20, 20, 30, 30]), Quad([5, 5, 5, 5, 5, 5, 5, 5]),
                      Quad([0, 0, 10, 0, 20, 0, 0, 10]), Quad([0, 0, 0, 0, 10, 10, 0, 10])])
    func degenerateQuadsAreRefused(_ quad: Quad) {
        #expect(Homography(width: 16, height: 16, quad: quad).flatMap(\.inverted) == nil)
    }

    /// A quad entirely off the canvas has an empty bounding box: nothing to warp.
    @Test func quadsOffTheCanvasHaveNoRegion() {
        #expect(OverlayLayer.boundingBox(Quad([-50, -50, -10, -50, -10, -10, -50, -10]), canvasWidth: 64,
                                         canvasHeight: 64).isEmpty)
        #expect(OverlayLayer.boundingBox(Quad([70, 10, 90, 10, 90, 30, 70, 30]), canvasWidth: 64,
                                         canvasHeight: 64).isEmpty)
    }
}

