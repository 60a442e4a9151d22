import CCompositionKernels
import Glibc
import MediaCore
import NetworkEmulator
import Testing
@testable import Composition

/// The C kernels (CCompositionKernels, through NativeKernels) against the Swift loops they replaced, kept here as the
/// reference: every path this CPU runs (portable, and AVX2 where the CPU has it) must give the same bytes, on case
/// tables with hand-checked bytes and on seeded random rows and lines. The AVX2 sampler's gathers read four bytes
/// where a sample needs two: a plane ending on a guard page shows any read past its last byte.
@Suite struct NativeKernelTests {
    // MARK: The Swift reference (the engine's loops before the C kernels)

    static func referenceMix(_ a: UInt8, _ b: UInt8, _ weight: UInt16) -> UInt8 {
        OverlayKernels.divide255(UInt16(a) &* (255 &- weight) &+ UInt16(b) &* weight)
    }

    /// One pair of rows as `OverlayKernels.blend` did it in Swift: luma by its weight, chroma by the truncated
    /// mean of the 2×2 weights.
    struct Rows: Equatable {
        var luma: [[UInt8]]        // canvas rows 0 and 1
        var cb: [UInt8]
        var cr: [UInt8]
    }

    static func referenceBlend(_ canvas: Rows, picture: Rows, weights: [[UInt8]]) -> Rows {
        var out = canvas
        for row in 0..<2 {
            for x in out.luma[row].indices {
                out.luma[row][x] = referenceMix(canvas.luma[row][x], picture.luma[row][x], UInt16(weights[row][x]))
            }
        }
        for x in out.cb.indices {
            let w = (UInt16(weights[0][2 * x]) &+ UInt16(weights[0][2 * x + 1]) &+ UInt16(weights[1][2 * x])
                     &+ UInt16(weights[1][2 * x + 1])) &>> 2
            out.cb[x] = referenceMix(canvas.cb[x], picture.cb[x], w)
            out.cr[x] = referenceMix(canvas.cr[x], picture.cr[x], w)
        }
        return out
    }

    /// The rows through C, the luma rows `gap` bytes apart in one array (a stride wider than the row).
    static func nativeBlend(_ canvas: Rows, picture: Rows, weights: [[UInt8]], path: KernelPath, gap: Int = 3) -> Rows {
        let count = canvas.luma[0].count, stride = count + gap
        var luma = canvas.luma[0] + [UInt8](repeating: 0xAA, count: gap) + canvas.luma[1]
        let pictureLuma = picture.luma[0] + [UInt8](repeating: 0x55, count: gap) + picture.luma[1]
        var (cb, cr) = (canvas.cb, canvas.cr)
        luma.withUnsafeMutableBufferPointer { luma in
        cb.withUnsafeMutableBufferPointer { cb in
        cr.withUnsafeMutableBufferPointer { cr in
        pictureLuma.withUnsafeBufferPointer { pictureLuma in
        picture.cb.withUnsafeBufferPointer { pictureCb in
        picture.cr.withUnsafeBufferPointer { pictureCr in
        weights[0].withUnsafeBufferPointer { top in
        weights[1].withUnsafeBufferPointer { bottom in
            NativeKernels.blendRows(.init(
                canvas_luma: luma.baseAddress, canvas_luma_stride: stride, picture_luma: pictureLuma.baseAddress,
                picture_luma_stride: stride, weight_top: top.baseAddress, weight_bottom: bottom.baseAddress,
                canvas_cb: cb.baseAddress, canvas_cr: cr.baseAddress, picture_cb: pictureCb.baseAddress,
                picture_cr: pictureCr.baseAddress, count: count), path: path)
        }}}}}}}}
        #expect(luma[count..<stride].allSatisfy { $0 == 0xAA }, "the gap between the rows was written")
        return Rows(luma: [Array(luma[0..<count]), Array(luma[stride...])], cb: cb, cr: cr)
    }

    // MARK: Blend

    /// (canvas, picture, weight) → the blended byte, checked by hand: (c·(255 − w) + p·w) / 255 rounded.
    static let mixCases: [(canvas: UInt8, picture: UInt8, weight: UInt8, expected: UInt8)] = [
        (200, 100, 0, 200),      // weight 0 keeps the canvas
        (200, 100, 255, 100),    // weight 255 is the picture
        (0, 255, 128, 128),      // 32 640 / 255 = 128.0
        (10, 250, 1, 11),        // 2 790 / 255 = 10.94
        (255, 0, 254, 1),        // 255 / 255
        (255, 255, 77, 255),
        (0, 0, 200, 0),
        (16, 235, 64, 71),       // (16·191 + 235·64) / 255 = 70.96
        (128, 129, 127, 128),    // (128·128 + 129·127) / 255 = 128.498
    ]

    /// Every case at every column of rows long enough for a full AVX2 step and a tail, and whole 32-column blocks of
    /// weight 0 (left alone) and 255 (copied) beside mixed ones, on both rows.
    @Test(arguments: KernelPath.available)
    func blendRowsMatchTheHandCheckedCases(_ path: KernelPath) {
        let count = 104 // three 32-column steps and an 8-column tail
        var canvas = Rows(luma: [[], []], cb: [], cr: []), picture = canvas
        var weights: [[UInt8]] = [[], []], expected: [[UInt8]] = [[], []]
        for row in 0..<2 {
            for x in 0..<count {
                let block = x / 32
                var testCase = Self.mixCases[(x + 5 * row) % Self.mixCases.count]
                if block == 1 { testCase = (testCase.canvas, testCase.picture, 0, testCase.canvas) }
                if block == 2 { testCase = (testCase.canvas, testCase.picture, 255, testCase.picture) }
                canvas.luma[row].append(testCase.canvas)
                picture.luma[row].append(testCase.picture)
                weights[row].append(testCase.weight)
                expected[row].append(testCase.expected)
            }
        }
        for x in 0..<(count / 2) {
            canvas.cb.append(UInt8(truncatingIfNeeded: 3 * x))
            canvas.cr.append(UInt8(truncatingIfNeeded: 250 - x))
            picture.cb.append(UInt8(truncatingIfNeeded: 200 + x))
            picture.cr.append(UInt8(truncatingIfNeeded: 7 * x))
        }
        let out = Self.nativeBlend(canvas, picture: picture, weights: weights, path: path)
        #expect(out.luma == expected)
        #expect(out == Self.referenceBlend(canvas, picture: picture, weights: weights))
        // Chroma over the all-0 block is the canvas, over the all-255 block the picture.
        #expect(out.cb[16..<32] == canvas.cb[16..<32] && out.cr[16..<32] == canvas.cr[16..<32])
        #expect(out.cb[32..<48] == picture.cb[32..<48] && out.cr[32..<48] == picture.cr[32..<48])
    }

    /// Seeded random rows of every even length up to 200: weights drawn as runs of 0, runs of 255 and noise (so
    /// some 32-column blocks are uniform, some nearly), the same bytes as the Swift reference on every path.
    @Test(arguments: KernelPath.available)
    func blendRowsMatchTheSwiftReferenceOnRandomRows(_ path: KernelPath) {
        var random = SeededGenerator(seed: 14)  // SplitMix64: a failure replays
        for count in stride(from: 2, through: 200, by: 2) {
            func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &random) } }
            func weightRow() -> [UInt8] {
                var row: [UInt8] = []
                while row.count < count {
                    let run = Int.random(in: 1...40, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: row += [UInt8](repeating: 0, count: run)
                    case 1: row += [UInt8](repeating: 255, count: run)
                    default: row += bytes(run)
                    }
                }
                return Array(row.prefix(count))
            }
            let canvas = Rows(luma: [bytes(count), bytes(count)], cb: bytes(count / 2), cr: bytes(count / 2))
            let picture = Rows(luma: [bytes(count), bytes(count)], cb: bytes(count / 2), cr: bytes(count / 2))
            let weights = [weightRow(), weightRow()]
            let out = Self.nativeBlend(canvas, picture: picture, weights: weights, path: path, gap: count % 7)
            #expect(out == Self.referenceBlend(canvas, picture: picture, weights: weights), "\(count) columns")
            if out != Self.referenceBlend(canvas, picture: picture, weights: weights) { return }
        }
    }

    /// The whole overlay blend (weights made from alpha × opacity × mask, spans) gives the same frame on every path.
    @Test func blendGivesTheSameFrameOnEveryPath() {
        let (width, height) = (150, 64)
        let picture = OverlayKernelTests.texture(width, height, seed: 3)
        let alphaBytes = OverlayKernelTests.texture(width, height, seed: 4).planes[0].bytes.enumerated().map {
            $0.offset % width < 40 ? 0 : ($0.offset % width > 100 ? 255 : $0.element)
        }
        let alpha = PixelBuffer.Plane(bytes: alphaBytes, bytesPerRow: width)
        let mask = OverlayKernelTests.texture(width + 10, height + 6, seed: 5).planes[0]
        let region = OverlayKernels.Region(x: 4, y: 2, width: width - 4, height: height - 4)
        let spans = (0..<(region.height / 2)).map { OverlayKernels.ColumnSpan(start: $0 % 9 * 2, end: region.width - $0 % 5 * 2) }
        for weights in [OverlayKernels.Weights(alpha: alpha, alphaX: 4, alphaY: 2),
                        OverlayKernels.Weights(alpha: alpha, alphaX: 4, alphaY: 2, opacity: 180, mask: mask),
                        OverlayKernels.Weights(mask: mask)] {
            var frames: [PixelBuffer] = []
            for path in KernelPath.available {
                var canvas = OverlayKernelTests.texture(width + 10, height + 6, seed: 9)
                var scratch: [UInt8] = []
                OverlayKernels.blend(picture, pictureX: 4, pictureY: 2, weights: weights, region: region, spans: spans,
                                     onto: &canvas, scratch: &scratch, path: path)
                frames.append(canvas)
            }
            #expect(frames.allSatisfy { $0.planes.map(\.bytes) == frames[0].planes.map(\.bytes) })
        }
    }

    // MARK: Bilinear samples along a line

    /// The Swift sampler the warp used: both rows of a sample in the two 16-bit halves of one 32-bit word.
    static func referenceSample(_ plane: UnsafePointer<UInt8>, stride: Int, _ u: Int, _ v: Int) -> UInt8 {
        let fu = UInt32(truncatingIfNeeded: (u &>> 8) & 255), fv = UInt32(truncatingIfNeeded: (v &>> 8) & 255)
        let p = plane + ((v &>> 16) &* stride &+ (u &>> 16))
        let left = UInt32(p[0]) | UInt32(p[stride]) &<< 16
        let right = UInt32(p[1]) | UInt32(p[stride &+ 1]) &<< 16
        let both = left &* (256 &- fu) &+ right &* fu
        return UInt8(truncatingIfNeeded: ((both & 0xFFFF) &* (256 &- fv) &+ (both &>> 16) &* fv &+ 32768) &>> 16)
    }

    /// A plane whose last byte is the last byte before an inaccessible page: a read past it faults.
    final class GuardedPlane {
        let base: UnsafeMutableRawPointer
        let mapped: Int
        let plane: UnsafeMutablePointer<UInt8>

        init(bytes: [UInt8]) {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let dataPages = (bytes.count + page - 1) / page
            mapped = (dataPages + 1) * page
            base = mmap(nil, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            mprotect(base + dataPages * page, page, PROT_NONE)
            plane = (base + dataPages * page - bytes.count).assumingMemoryBound(to: UInt8.self)
            plane.update(from: bytes, count: bytes.count)
        }

        deinit { munmap(base, mapped) }
    }

    /// Seeded random planes (4…90 a side, strides wider than rows or not, each ending on a guard page) and lines
    /// inside them as the warp makes them (both ends clamped so that the right and bottom neighbours are inside,
    /// truncated steps), with and without a second plane: the same bytes as the Swift reference on every path.
    @Test(arguments: KernelPath.available)
    func sampleLineMatchesTheSwiftReferenceOnRandomLines(_ path: KernelPath) {
        var random = SeededGenerator(seed: 2026)
        for trial in 0..<1500 {
            let width = Int.random(in: 4...90, using: &random), height = Int.random(in: 4...90, using: &random)
            let stride = width + (trial % 3 == 0 ? 0 : Int.random(in: 1...9, using: &random))
            let secondStride = trial % 4 == 0 ? stride : width + Int.random(in: 0...5, using: &random)
            func planeBytes(_ stride: Int) -> [UInt8] {
                (0..<(stride * (height - 1) + width)).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
            let first = GuardedPlane(bytes: planeBytes(stride)), second = GuardedPlane(bytes: planeBytes(secondStride))
            let maximumU = ((width - 1) << 16) - 1, maximumV = ((height - 1) << 16) - 1
            // Lines touching the last column and row now and then, where an over-read would show.
            func end(_ maximum: Int) -> Int {
                Int.random(in: 0..<4, using: &random) == 0 ? maximum : Int.random(in: 0...maximum, using: &random)
            }
            let count = Int.random(in: 1...70, using: &random)
            var (u0, v0, u1, v1) = (end(maximumU), end(maximumV), end(maximumU), end(maximumV))
            if trial % 3 != 0 {
                // A warp's line: about a pixel per sample across, a little down or up (one 16-byte window per row
                // and block, blocks over one row or two).
                u1 = min(max(u0 + Int.random(in: -95_000...95_000, using: &random) * count, 0), maximumU)
                v1 = min(max(v0 + Int.random(in: -12_000...12_000, using: &random) * count, 0), maximumV)
            }
            let stepU = (u1 - u0) / count, stepV = (v1 - v0) / count
            let withSecond = trial % 2 == 0
            var output = [UInt8](repeating: 0, count: count), secondOutput = output
            output.withUnsafeMutableBufferPointer { output in
                secondOutput.withUnsafeMutableBufferPointer { secondOutput in
                    NativeKernels.sampleLine(.init(
                        plane: first.plane, stride: stride, second: withSecond ? second.plane : nil,
                        second_stride: secondStride, u: Int64(u0), v: Int64(v0), step_u: Int64(stepU),
                        step_v: Int64(stepV), count: count, output: output.baseAddress,
                        second_output: secondOutput.baseAddress), path: path)
                }
            }
            let points = (0..<count).map { (u0 + $0 * stepU, v0 + $0 * stepV) }
            let expected = points.map { Self.referenceSample(first.plane, stride: stride, $0.0, $0.1) }
            let expectedSecond = withSecond
                ? points.map { Self.referenceSample(second.plane, stride: secondStride, $0.0, $0.1) }
                : [UInt8](repeating: 0, count: count)
            #expect(output == expected && secondOutput == expectedSecond,
                    "trial \(trial): \(width)x\(height) stride \(stride), (\(u0), \(v0)) → (\(u1), \(v1)) in \(count)")
            if output != expected || secondOutput != expectedSecond { return }
        }
    }

    /// The whole corner-pin warp (exact edges, interpolated spans, both chroma planes, an alpha plane) gives the
    /// same picture and coverage on every path.
    @Test(arguments: OverlayKernelTests.warpCases)
    func warpGivesTheSameBytesOnEveryPath(_ testCase: (String, Int, Int, Int, Int, Quad)) throws {
        let (name, width, height, canvasWidth, canvasHeight, quad) = testCase
        let picture = OverlayKernelTests.texture(width, height, seed: 11)
        let alpha = OverlayKernelTests.texture(width, height, seed: 12).planes[0]
        let inverse = try #require(Homography(width: width, height: height, quad: quad)?.inverted)
        let region = OverlayLayer.boundingBox(quad, canvasWidth: canvasWidth, canvasHeight: canvasHeight)
        var results: [([[UInt8]], [UInt8], [OverlayKernels.ColumnSpan])] = []
        for path in KernelPath.available {
            var warped = PixelBuffer(format: .i420, width: canvasWidth, height: canvasHeight)
            var coverage: [UInt8] = [], spans: [OverlayKernels.ColumnSpan] = []
            OverlayKernels.warp(picture, alpha: alpha, inverse: inverse, region: region, into: &warped,
                                warpedAlpha: &coverage, spans: &spans, path: path)
            results.append((warped.planes.map(\.bytes), coverage, spans))
        }
        for result in results.dropFirst() {
            #expect(result.0 == results[0].0 && result.1 == results[0].1 && result.2 == results[0].2, "\(name)")
        }
    }

    /// A forced AVX2 path on a CPU without it runs the portable code (never an illegal instruction), and the
    /// engine's default is AVX2 exactly when the CPU has it (unless RTENC_KERNELS=portable).
    @Test func theDefaultPathFollowsTheCPU() {
        let hasAVX2 = rtenc_kernels_cpu_has_avx2() != 0
        #expect(KernelPath.available == (hasAVX2 ? [.portable, .avx2] : [.portable]))
        let forced = getenv("RTENC_KERNELS").map { String(cString: $0) == "portable" } ?? false
        #expect(KernelPath.best == (hasAVX2 && !forced ? .avx2 : .portable))
    }
}
