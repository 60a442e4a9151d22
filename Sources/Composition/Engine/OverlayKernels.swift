import MediaCore

/// The overlay's pixel work on I420 planes, no RGB round trip: the alpha blend (ffmpeg's `overlay` in yuv420 mode:
/// luma blended by the weight, chroma by the mean of the four luma weights it covers, straight alpha, ÷255 rounded)
/// with the per-pixel weight (the picture's alpha × opacity × mask) made on the fly, and the bilinear homography warp
/// for corner pins (`OverlayKernels+Warp`). The weights are made here in plain loops the compiler vectorises; the
/// blend of each pair of rows and the warp's samples run in C (`NativeKernels`: CCompositionKernels, AVX2 where the
/// CPU has it, `path` chosen once per process). All regions are even-aligned and inside their planes (the caller clips).
enum OverlayKernels {
    /// A region of the canvas: top-left (x, y) and size, all even.
    struct Region: Equatable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int

        var isEmpty: Bool { width <= 0 || height <= 0 }
    }

    /// The columns [start, end) of one pair of region rows that can be drawn (both even); empty when start ≥ end.
    struct ColumnSpan: Equatable {
        var start: Int
        var end: Int
    }

    /// Where each pixel's weight comes from: the picture's `alpha` (nil: opaque) read at (alphaX + x, alphaY + y) for
    /// region pixel (x, y), × `opacity` / 255, × the canvas-sized full-range `mask` (nil: none) at the canvas
    /// position. The two products are rounded one after the other, as ffmpeg would apply them one filter at a time.
    struct Weights {
        var alpha: PixelBuffer.Plane?
        var alphaX = 0
        var alphaY = 0
        var opacity: UInt32 = 255
        var mask: PixelBuffer.Plane?
    }

    /// v / 255 rounded to nearest for v in 0…255·255: ffmpeg's FAST_DIV255, ((v + 128) · 257) >> 16, which the
    /// compiler turns into one add and one multiply-high (`pmulhuw`) per 8 lanes: v + 128 ≤ 65 153 fits 16 bits.
    /// The blend itself (the same ÷255 of the straight-alpha mix) is C's `rtenc_blend_rows`, AVX2 where the CPU has it.
    @inline(__always)
    static func divide255(_ value: UInt16) -> UInt8 {
        UInt8(truncatingIfNeeded: (UInt32(value &+ 128) &* 257) &>> 16)
    }

    /// Blends `picture` (its pixel (pictureX + x, pictureY + y) over canvas pixel (region.x + x, region.y + y)) onto
    /// `canvas`: out = (canvas·(255 − w) + picture·w) / 255 with w from `weights`, two luma rows and their chroma row
    /// at a time. `spans` (one per pair of rows; nil: the whole width) limits the columns touched, so a corner pin
    /// blends only the part of its bounding box the quad covers. `scratch` holds the two rows of weights when they
    /// are a product; a single source (the alpha, or the mask, at full opacity) is read in place. `path`: which C
    /// implementation blends (tests run each; they compute the same bytes).
    static func blend(
        _ picture: PixelBuffer, pictureX: Int, pictureY: Int, weights: Weights, region: Region,
        spans: [ColumnSpan]? = nil, onto canvas: inout PixelBuffer, scratch: inout [UInt8], path: KernelPath = .best
    ) {
        guard !region.isEmpty, weights.opacity > 0 else { return }
        if scratch.count < 2 * region.width { scratch = [UInt8](repeating: 0, count: 2 * region.width) }
        let opacity = UInt16(min(weights.opacity, 255))
        let alpha = weights.alpha?.bytes ?? [], alphaStride = weights.alpha?.bytesPerRow ?? 0
        let mask = weights.mask?.bytes ?? [], maskStride = weights.mask?.bytesPerRow ?? 0
        let hasAlpha = weights.alpha != nil, hasMask = weights.mask != nil
        let lumaStride = picture.planes[0].bytesPerRow, canvasLumaStride = canvas.planes[0].bytesPerRow
        let uStride = picture.planes[1].bytesPerRow, canvasUStride = canvas.planes[1].bytesPerRow
        let vStride = picture.planes[2].bytesPerRow, canvasVStride = canvas.planes[2].bytesPerRow
        let alphaOrigin = weights.alphaY * alphaStride + weights.alphaX
        let maskOrigin = region.y * maskStride + region.x
        scratch.withUnsafeMutableBufferPointer { scratchBuffer in
        alpha.withUnsafeBufferPointer { alphaBuffer in
        mask.withUnsafeBufferPointer { maskBuffer in
        picture.planes[0].bytes.withUnsafeBufferPointer { sourceY in
        picture.planes[1].bytes.withUnsafeBufferPointer { sourceU in
        picture.planes[2].bytes.withUnsafeBufferPointer { sourceV in
        withPlanes(of: &canvas) { canvasY, canvasU, canvasV in
            guard let scratch = scratchBuffer.baseAddress, let sourceY = sourceY.baseAddress,
                  let sourceU = sourceU.baseAddress, let sourceV = sourceV.baseAddress else { return }
            // An empty array may still lend a base address: the flags say which planes there are.
            let alphaPlane = hasAlpha ? alphaBuffer.baseAddress : nil, maskPlane = hasMask ? maskBuffer.baseAddress : nil
            let opaque = !hasAlpha && !hasMask && opacity == 255
            for pair in 0..<(region.height >> 1) {
                let y = 2 * pair
                var start = 0, end = region.width
                if let spans {
                    start = max(spans[pair].start, 0)
                    end = min(spans[pair].end, region.width)
                    guard start < end else { continue }
                }
                let count = end - start, chromaStart = start >> 1, chromaCount = count >> 1
                let lumaSource = sourceY + (pictureY + y) * lumaStride + pictureX + start
                let lumaCanvas = canvasY + (region.y + y) * canvasLumaStride + region.x + start
                let sourceRow = (pictureY >> 1) + pair, sourceColumn = (pictureX >> 1) + chromaStart
                let canvasRow = (region.y >> 1) + pair, canvasColumn = (region.x >> 1) + chromaStart
                let sourceURow = sourceU + sourceRow * uStride + sourceColumn
                let sourceVRow = sourceV + sourceRow * vStride + sourceColumn
                let canvasURow = canvasU + canvasRow * canvasUStride + canvasColumn
                let canvasVRow = canvasV + canvasRow * canvasVStride + canvasColumn
                if opaque {
                    lumaCanvas.update(from: lumaSource, count: count)
                    (lumaCanvas + canvasLumaStride).update(from: lumaSource + lumaStride, count: count)
                    canvasURow.update(from: sourceURow, count: chromaCount)
                    canvasVRow.update(from: sourceVRow, count: chromaCount)
                    continue
                }
                // The two rows of weights: in place when there is one source at full opacity, else made here.
                let top: UnsafePointer<UInt8>, bottom: UnsafePointer<UInt8>
                if let alphaPlane, !hasMask, opacity == 255 {
                    top = alphaPlane + alphaOrigin + y * alphaStride + start
                    bottom = top + alphaStride
                } else if let maskPlane, !hasAlpha, opacity == 255 {
                    top = maskPlane + maskOrigin + y * maskStride + start
                    bottom = top + maskStride
                } else {
                    for row in 0..<2 {
                        let out = scratch + row * region.width
                        if let alphaPlane {
                            let input = alphaPlane + alphaOrigin + (y + row) * alphaStride + start
                            if opacity == 255 {
                                out.update(from: input, count: count)
                            } else {
                                for x in 0..<count { out[x] = divide255(UInt16(input[x]) &* opacity) }
                            }
                        } else {
                            out.update(repeating: UInt8(truncatingIfNeeded: opacity), count: count)
                        }
                        if let maskPlane {
                            let input = maskPlane + maskOrigin + (y + row) * maskStride + start
                            for x in 0..<count { out[x] = divide255(UInt16(out[x]) &* UInt16(input[x])) }
                        }
                    }
                    top = UnsafePointer(scratch)
                    bottom = top + region.width
                }
                NativeKernels.blendRows(.init(
                    canvas_luma: lumaCanvas, canvas_luma_stride: canvasLumaStride, picture_luma: lumaSource,
                    picture_luma_stride: lumaStride, weight_top: top, weight_bottom: bottom, canvas_cb: canvasURow,
                    canvas_cr: canvasVRow, picture_cb: sourceURow, picture_cr: sourceVRow, count: count), path: path)
            }
        }}}}}}}
    }

    /// Lends the three planes of an I420 `buffer` mutably at once: each plane's bytes are swapped out of the buffer
    /// for the call and back (unique, so nothing is copied), since nested accesses to `buffer.planes` overlap.
    static func withPlanes(
        of buffer: inout PixelBuffer,
        _ body: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Void
    ) {
        var (y, u, v) = ([UInt8](), [UInt8](), [UInt8]())
        swap(&y, &buffer.planes[0].bytes)
        swap(&u, &buffer.planes[1].bytes)
        swap(&v, &buffer.planes[2].bytes)
        defer {
            swap(&y, &buffer.planes[0].bytes)
            swap(&u, &buffer.planes[1].bytes)
            swap(&v, &buffer.planes[2].bytes)
        }
        y.withUnsafeMutableBufferPointer { y in
            u.withUnsafeMutableBufferPointer { u in
                v.withUnsafeMutableBufferPointer { v in
                    guard let y = y.baseAddress, let u = u.baseAddress, let v = v.baseAddress else { return }
                    body(y, u, v)
                }
            }
        }
    }
}
