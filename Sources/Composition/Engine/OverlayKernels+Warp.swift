import MediaCore

/// The bilinear homography warp of a corner pin, bounded by the quad's bounding box and, inside it, by the quad.
///
/// Per row, the canvas pixels that map inside the picture form one interval while the projective denominator keeps
/// its sign (the quad is convex); its ends are solved from four linear inequalities. Where the pixel and its right
/// and bottom neighbours are inside (the same interval for a picture a pixel smaller), ffmpeg's `perspective` would
/// read a precomputed map per pixel; here the map is evaluated exactly (one division) every few pixels (as many as
/// keep the error under 1/512 pixel, at most `maximumSpanLength`) and interpolated linearly between, in 16.16 fixed
/// point. Each span ends on a pixel it samples, clamped into the picture, so every read in between is inside it (no
/// bounds check per pixel). The rest of the interval, two pixels more each side, is done
/// the exact, checked way (whether a pixel maps inside is decided per pixel), as is a whole row whose denominator
/// changes sign. Bilinear weights are 8-bit (1/256 pixel, rounded, as `perspective` interpolation=linear). The
/// spans — their ends, their lengths and their samples — are C's (`rtenc_warp_row`, one call per row; the samples
/// eight at a time with AVX2, each row of a block one 16-byte load and a byte shuffle, or gathers).
extension OverlayKernels {
    /// The most pixels between two exact evaluations of the map (an affine map needs only the ends).
    static let maximumSpanLength = 64

    /// The picture's planes as pointers, for the warp's loops.
    private struct Source {
        var plane: UnsafePointer<UInt8>
        var stride: Int
        var width: Int
        var height: Int
        /// The largest 16.16 coordinates the fast path may use: the right and bottom neighbours stay inside.
        var maximumU: Int { ((width - 1) << 16) - 1 }
        var maximumV: Int { ((height - 1) << 16) - 1 }
    }

    /// The map at one canvas row: numerators and denominator at the region's left edge and their steps per pixel.
    private struct RowMap {
        var u: Double
        var v: Double
        var d: Double
        var stepU: Double
        var stepV: Double
        var stepD: Double

        init(_ m: [Double], x: Double, y: Double, step: Double) {
            u = m[0] * x + m[1] * y + m[2]
            v = m[3] * x + m[4] * y + m[5]
            d = m[6] * x + m[7] * y + m[8]
            (stepU, stepV, stepD) = (m[0] * step, m[3] * step, m[6] * step)
        }

        /// The pixels [start, end) of a `count`-pixel row that map inside a picture of `limitU`×`limitV` 1/256 pixels
        /// (u ≥ −½ and u < limitU − ½ in 1/256, the same for v), or nil when the denominator changes sign or
        /// vanishes on the row (then the row is done pixel by pixel).
        func inside(count: Int, limitU: Double, limitV: Double) -> (start: Int, end: Int)? {
            let last = Double(count - 1)
            let first = d, final = d + stepD * last
            guard first != 0, final != 0, (first > 0) == (final > 0) else { return nil }
            let sign: Double = first > 0 ? 1 : -1
            var start = 0.0, end = Double(count)
            // Each condition is a·x + b ≥ 0 once multiplied by the denominator's sign.
            let conditions = [(256 * stepU + 0.5 * stepD, 256 * u + 0.5 * d),
                              ((limitU - 0.5) * stepD - 256 * stepU, (limitU - 0.5) * d - 256 * u),
                              (256 * stepV + 0.5 * stepD, 256 * v + 0.5 * d),
                              ((limitV - 0.5) * stepD - 256 * stepV, (limitV - 0.5) * d - 256 * v)]
            for (a, b) in conditions {
                let (a, b) = (a * sign, b * sign)
                if a > 0 {
                    start = max(start, (-b / a).rounded(.up))
                } else if a < 0 {
                    end = min(end, (-b / a).rounded(.down) + 1)
                } else if b < 0 {
                    return (0, 0)
                }
            }
            guard start.isFinite, end.isFinite, start < end else { return (0, 0) }
            return (Int(max(start, 0)), Int(min(end, Double(count))))
        }
    }

    /// Samples [start, end) of a row into `output` (and `cover`, when given: the `alpha` plane's samples at the same
    /// points — for chroma, Cr's —, or 255 without one), the map evaluated exactly at both ends of every span (at most
    /// `maximumSpanLength` pixels, fewer where the map bends) and interpolated between, all in C (`rtenc_warp_row`:
    /// one call per row, the samples AVX2 where the CPU has it). Every span ends on a pixel it samples, so both ends
    /// are inside the picture and so is every point between them. NativeKernelTests keeps the Swift this replaced as
    /// the reference the C must match byte for byte.
    @inline(__always)
    private static func fastRow(_ map: RowMap, start: Int, end: Int, source: Source, alpha: Source?, bias: Double,
                                divisor: Double, output: UnsafeMutablePointer<UInt8>,
                                cover: UnsafeMutablePointer<UInt8>?, path: KernelPath) {
        guard start < end else { return }
        // The second plane is sampled only where there is somewhere to put it.
        let second = cover == nil ? nil : alpha
        NativeKernels.warpRow(.init(
            u: map.u, v: map.v, d: map.d, step_u: map.stepU, step_v: map.stepV, step_d: map.stepD, start: start,
            end: end, maximum_span: maximumSpanLength, bias: bias, divisor: divisor,
            maximum_u: Int64(source.maximumU), maximum_v: Int64(source.maximumV), plane: source.plane,
            stride: source.stride, second: second?.plane, second_stride: second?.stride ?? 0, output: output,
            second_output: cover), path: path)
    }

    /// Warps `picture` (with `alpha`, nil: opaque) through `inverse` (canvas → picture pixels) into `warped` and
    /// `warpedAlpha`, both `region`-sized: warped pixel (x, y) is canvas pixel (region.x + x, region.y + y). A chroma
    /// sample takes the map of the luma pixel at its top left, halved. The alpha is 0 where the canvas pixel maps
    /// outside the picture, so only the quad is drawn; `spans` gets, per pair of rows, the columns where it may be
    /// non-zero, for `blend`. Samples are only computed where they can show.
    static func warp(
        _ picture: PixelBuffer, alpha: PixelBuffer.Plane?, inverse: Homography, region: Region,
        into warped: inout PixelBuffer, warpedAlpha: inout [UInt8], spans: inout [ColumnSpan],
        path: KernelPath = .best
    ) {
        let count = region.width * region.height
        if warpedAlpha.count < count { warpedAlpha = [UInt8](repeating: 0, count: count) }
        let empty = ColumnSpan(start: 0, end: 0)
        if spans.count == region.height >> 1 {
            for index in spans.indices { spans[index] = empty }
        } else {
            spans = [ColumnSpan](repeating: empty, count: region.height >> 1)
        }
        // The fast path needs a right and a bottom neighbour in every plane.
        let fast = picture.width >= 4 && picture.height >= 4
        let m = inverse.m
        let limitU = Double(picture.width << 8), limitV = Double(picture.height << 8)
        let width = region.width, outputStride = warped.planes[0].bytesPerRow
        warpedAlpha.withUnsafeMutableBufferPointer { coverageBuffer in
        picture.planes[0].bytes.withUnsafeBufferPointer { lumaBuffer in
        warped.planes[0].bytes.withUnsafeMutableBufferPointer { outputBuffer in
        (alpha?.bytes ?? []).withUnsafeBufferPointer { alphaBuffer in
            guard let coverage = coverageBuffer.baseAddress, let luma = lumaBuffer.baseAddress,
                  let output = outputBuffer.baseAddress else { return }
            let source = Source(plane: luma, stride: picture.planes[0].bytesPerRow, width: picture.width,
                                height: picture.height)
            // An empty array may still lend a base address: only a real alpha plane is read.
            let alphaSource = (alpha == nil ? nil : alphaBuffer.baseAddress).map {
                Source(plane: $0, stride: alpha!.bytesPerRow, width: picture.width, height: picture.height)
            }
            for y in 0..<region.height {
                let map = RowMap(m, x: Double(region.x), y: Double(region.y + y), step: 1)
                let row = output + y * outputStride, cover = coverage + y * width
                var exact = (start: 0, end: width), inner = (start: 0, end: 0)
                if fast, let inside = map.inside(count: width, limitU: limitU, limitV: limitV),
                   let core = map.inside(count: width, limitU: limitU - 256, limitV: limitV - 256) {
                    // Nothing inside (the quad misses this row): exact stays empty. The fast columns are those whose
                    // right and bottom neighbours are inside the picture too, less a pixel each side for rounding.
                    exact = inside.start < inside.end ? (max(inside.start - 2, 0), min(inside.end + 2, width)) : (0, 0)
                    inner = (max(core.start + 1, exact.start), min(core.end - 1, exact.end))
                    if inner.start >= inner.end { inner = (exact.end, exact.end) }
                }
                cover.update(repeating: 0, count: exact.start)
                (cover + exact.end).update(repeating: 0, count: width - exact.end)
                exactLuma(map, columns: exact.start..<inner.start, source: source, alpha: alphaSource,
                          limitU: limitU, limitV: limitV, output: row, cover: cover)
                exactLuma(map, columns: max(inner.end, inner.start)..<exact.end, source: source, alpha: alphaSource,
                          limitU: limitU, limitV: limitV, output: row, cover: cover)
                fastRow(map, start: inner.start, end: inner.end, source: source, alpha: alphaSource, bias: 128,
                        divisor: 1, output: row, cover: cover, path: path)
                let pair = y >> 1
                if exact.start < exact.end {
                    let start = exact.start & ~1, end = min((exact.end + 1) & ~1, width)
                    spans[pair] = spans[pair].start < spans[pair].end
                        ? .init(start: min(spans[pair].start, start), end: max(spans[pair].end, end))
                        : .init(start: start, end: end)
                }
            }
        }}}}
        // Chroma: only the blocks the quad touches (the columns of `spans`); Cb and Cr share the map and the
        // weights, so they are sampled together (Cr through fastRow's second plane).
        let planeWidth = picture.rowBytes(ofPlane: 1), planeHeight = picture.rows(ofPlane: 1)
        // In the luma's 1/256 pixels, as `inside` reads the map.
        let chromaLimitU = Double((planeWidth - 1) << 9), chromaLimitV = Double((planeHeight - 1) << 9)
        let strideU = warped.planes[1].bytesPerRow, strideV = warped.planes[2].bytesPerRow
        warpedAlpha.withUnsafeBufferPointer { coverageBuffer in
        picture.planes[1].bytes.withUnsafeBufferPointer { inputU in
        picture.planes[2].bytes.withUnsafeBufferPointer { inputV in
        withPlanes(of: &warped) { _, outputU, outputV in
            guard let coverage = coverageBuffer.baseAddress, let inputU = inputU.baseAddress,
                  let inputV = inputV.baseAddress else { return }
            let sourceU = Source(plane: inputU, stride: picture.planes[1].bytesPerRow, width: planeWidth,
                                 height: planeHeight)
            let sourceV = Source(plane: inputV, stride: picture.planes[2].bytesPerRow, width: planeWidth,
                                 height: planeHeight)
            for y in 0..<(region.height >> 1) {
                let span = spans[y]
                guard span.start < span.end else { continue }
                let map = RowMap(m, x: Double(region.x), y: Double(region.y + 2 * y), step: 2)
                let rowU = outputU + y * strideU, rowV = outputV + y * strideV
                let top = coverage + 2 * y * width, bottom = top + width
                let all = (span.start >> 1)..<(span.end >> 1)
                // Fast where the sample and its right and bottom neighbours are inside the chroma plane (the luma's
                // fast columns are not enough: half a luma pixel is a quarter of a chroma one), less a pixel each
                // side for rounding.
                var fastPart = all.lowerBound..<all.lowerBound
                if fast, let core = map.inside(count: width >> 1, limitU: chromaLimitU, limitV: chromaLimitV),
                   core.start + 1 < core.end - 1 {
                    fastPart = ((core.start + 1)..<(core.end - 1)).clamped(to: all)
                }
                exactChroma(map, columns: all.lowerBound..<fastPart.lowerBound, sources: (sourceU, sourceV),
                            limitU: limitU, limitV: limitV, top: top, bottom: bottom, outputs: (rowU, rowV))
                exactChroma(map, columns: fastPart.upperBound..<all.upperBound, sources: (sourceU, sourceV),
                            limitU: limitU, limitV: limitV, top: top, bottom: bottom, outputs: (rowU, rowV))
                fastRow(map, start: fastPart.lowerBound, end: fastPart.upperBound, source: sourceU, alpha: sourceV,
                        bias: 128, divisor: 2, output: rowU, cover: rowV, path: path)
            }
        }}}}
    }

    /// The checked way for `columns` of a luma row: inside or not decided per pixel (u and v in 1/256 rounded to
    /// nearest, inside [0, w·256) × [0, h·256)), coverage 0 outside.
    private static func exactLuma(_ map: RowMap, columns: Range<Int>, source: Source, alpha: Source?, limitU: Double,
                                  limitV: Double, output: UnsafeMutablePointer<UInt8>,
                                  cover: UnsafeMutablePointer<UInt8>) {
        for x in columns {
            let position = Double(x), denominator = map.d + map.stepD * position
            cover[x] = 0
            guard denominator != 0, case let scale = 256 / denominator, scale.isFinite else { continue }
            let uf = (map.u + map.stepU * position) * scale, vf = (map.v + map.stepV * position) * scale
            guard uf >= -0.5, vf >= -0.5, uf < limitU - 0.5, vf < limitV - 0.5 else { continue }
            // Rounded to nearest: truncating a non-negative value + ½ (no libm call).
            let u = Int(uf + 0.5), v = Int(vf + 0.5)
            output[x] = bilinear(source.plane, stride: source.stride, width: source.width, height: source.height,
                                 u: u, v: v)
            cover[x] = alpha.map {
                bilinear($0.plane, stride: $0.stride, width: $0.width, height: $0.height, u: u, v: v)
            } ?? 255
        }
    }

    /// The checked way for `columns` of a chroma row: blocks no luma pixel of which is covered are skipped; the map
    /// clamped into the plane, as ffmpeg does at the edges.
    private static func exactChroma(_ map: RowMap, columns: Range<Int>, sources: (Source, Source), limitU: Double,
                                    limitV: Double, top: UnsafePointer<UInt8>, bottom: UnsafePointer<UInt8>,
                                    outputs: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>)) {
        for x in columns {
            let touched = top[2 * x] | top[2 * x + 1] | bottom[2 * x] | bottom[2 * x + 1]
            let position = Double(x), denominator = map.d + map.stepD * position
            // A subnormal denominator makes the scale infinite and 0 × ∞ a NaN, which Int() traps on.
            guard touched != 0, denominator != 0, case let scale = 256 / denominator, scale.isFinite else { continue }
            // Rounded to nearest by truncating after an offset that makes it positive, then halved.
            let uf = min(max((map.u + map.stepU * position) * scale, -1024), limitU + 1024) + 2048.5
            let vf = min(max((map.v + map.stepV * position) * scale, -1024), limitV + 1024) + 2048.5
            let u = (Int(uf) - 2048) >> 1, v = (Int(vf) - 2048) >> 1
            let (cb, cr) = sources
            outputs.0[x] = bilinear(cb.plane, stride: cb.stride, width: cb.width, height: cb.height, u: u, v: v)
            outputs.1[x] = bilinear(cr.plane, stride: cr.stride, width: cr.width, height: cr.height, u: u, v: v)
        }
    }

    /// The sample at (u, v) in 1/256 pixels, bilinear between the four neighbours, coordinates clamped to the plane
    /// (ffmpeg's `perspective` clamps the same way).
    @inline(__always)
    static func bilinear(_ plane: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, u: Int, v: Int) -> UInt8 {
        let fu = UInt32(u & 255), fv = UInt32(v & 255)
        let x0 = min(max(u >> 8, 0), width - 1), y0 = min(max(v >> 8, 0), height - 1)
        let x1 = min(max((u >> 8) + 1, 0), width - 1), y1 = min(max((v >> 8) + 1, 0), height - 1)
        let top = plane + y0 * stride, bottom = plane + y1 * stride
        let upper = (256 - fu) * UInt32(top[x0]) + fu * UInt32(top[x1])
        let lower = (256 - fu) * UInt32(bottom[x0]) + fu * UInt32(bottom[x1])
        return UInt8(truncatingIfNeeded: ((256 - fv) * upper + fv * lower + 32768) >> 16)
    }
}
