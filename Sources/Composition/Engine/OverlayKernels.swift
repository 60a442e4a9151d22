import MediaCore

/// The overlay's pixel work on I420 planes, no RGB round trip: the per-pixel weight (the picture's alpha × opacity ×
/// mask), the alpha blend (ffmpeg's `overlay` in yuv420 mode: luma blended by the weight, chroma by the mean of the
/// four luma weights it covers, straight alpha, ÷255 rounded), and the bilinear homography warp for corner pins.
/// Plain loops over unsafe pointers; all regions are even-aligned and inside their planes (the caller clips).
enum OverlayKernels {
    /// A region of the canvas: top-left (x, y) and size, all even.
    struct Region: Equatable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int

        var isEmpty: Bool { width <= 0 || height <= 0 }
    }

    /// v / 255 rounded to nearest, exact for v in 0…255·255 (the same as ffmpeg's FAST_DIV255), in 16-bit lanes:
    /// v + 128 + ((v + 128) >> 8) ≤ 65 407 cannot overflow, so the loops vectorise 16 samples to a 256-bit register.
    @inline(__always)
    static func divide255(_ value: UInt16) -> UInt8 {
        let biased = value &+ 128
        return UInt8(truncatingIfNeeded: (biased &+ (biased >> 8)) >> 8)
    }

    /// (a·(255 − w) + b·w) / 255, rounded: ≤ 255·255 fits 16 bits.
    @inline(__always)
    static func mix(_ a: UInt8, _ b: UInt8, _ weight: UInt16) -> UInt8 {
        divide255(UInt16(a) &* (255 &- weight) &+ UInt16(b) &* weight)
    }

    /// `weights[y·width + x]` = alpha × opacity × mask / 255² for each pixel of `region`, where the picture's alpha
    /// (nil: opaque) is read from (alphaX + x, alphaY + y) and the mask (canvas-sized luma, full range; nil: none)
    /// from the canvas position.
    static func weights(
        alpha: PixelBuffer.Plane?, alphaX: Int, alphaY: Int, opacity: UInt32, mask: PixelBuffer.Plane?,
        region: Region, into weights: inout [UInt8]
    ) {
        let count = region.width * region.height
        if weights.count < count { weights = [UInt8](repeating: 0, count: count) }
        let width = region.width
        weights.withUnsafeMutableBufferPointer { output in
            guard let output = output.baseAddress else { return }
            // Alpha × opacity first.
            if let alpha {
                let stride = alpha.bytesPerRow
                alpha.bytes.withUnsafeBufferPointer { input in
                    guard let input = input.baseAddress else { return }
                    let weight = UInt16(opacity)
                    for y in 0..<region.height {
                        let row = input + (alphaY + y) * stride + alphaX, out = output + y * width
                        if opacity == 255 {
                            out.update(from: row, count: width)
                        } else {
                            for x in 0..<width {
                                out[x] = divide255(UInt16(row[x]) &* weight)
                            }
                        }
                    }
                }
            } else if let mask, opacity == 255 {
                // Opaque at full opacity: the weights are the mask's.
                let stride = mask.bytesPerRow
                mask.bytes.withUnsafeBufferPointer { input in
                    guard let input = input.baseAddress else { return }
                    for y in 0..<region.height {
                        (output + y * width).update(from: input + (region.y + y) * stride + region.x, count: width)
                    }
                }
                return
            } else {
                output.update(repeating: UInt8(truncatingIfNeeded: opacity), count: count)
            }
            guard let mask else { return }
            let stride = mask.bytesPerRow
            mask.bytes.withUnsafeBufferPointer { input in
                guard let input = input.baseAddress else { return }
                for y in 0..<region.height {
                    let row = input + (region.y + y) * stride + region.x, out = output + y * width
                    for x in 0..<width {
                        out[x] = divide255(UInt16(out[x]) &* UInt16(row[x]))
                    }
                }
            }
        }
    }

    /// Blends `picture` (its pixel (pictureX + x, pictureY + y) over canvas pixel (region.x + x, region.y + y)) onto
    /// `canvas` by `weights` (region-sized, from `weights(…)`): out = (canvas·(255 − w) + picture·w) / 255.
    static func blend(
        _ picture: PixelBuffer, pictureX: Int, pictureY: Int, weights: [UInt8], region: Region,
        onto canvas: inout PixelBuffer
    ) {
        weights.withUnsafeBufferPointer { weightBuffer in
            guard let weight = weightBuffer.baseAddress else { return }
            for plane in 0..<3 {
                let shift = plane == 0 ? 0 : 1
                let width = region.width >> shift, height = region.height >> shift
                let sourceStride = picture.planes[plane].bytesPerRow, canvasStride = canvas.planes[plane].bytesPerRow
                let sourceOrigin = (pictureY >> shift) * sourceStride + (pictureX >> shift)
                let canvasOrigin = (region.y >> shift) * canvasStride + (region.x >> shift)
                let weightWidth = region.width
                picture.planes[plane].bytes.withUnsafeBufferPointer { input in
                    canvas.planes[plane].bytes.withUnsafeMutableBufferPointer { output in
                        guard let input = input.baseAddress, let output = output.baseAddress else { return }
                        for y in 0..<height {
                            let source = input + sourceOrigin + y * sourceStride
                            let destination = output + canvasOrigin + y * canvasStride
                            if shift == 0 {
                                let w = weight + y * weightWidth
                                for x in 0..<width {
                                    destination[x] = mix(destination[x], source[x], UInt16(w[x]))
                                }
                            } else {
                                // The chroma sample covers a 2×2 block of luma weights: their mean, truncated, as
                                // ffmpeg's overlay averages the alpha plane for 4:2:0.
                                let top = weight + 2 * y * weightWidth, bottom = top + weightWidth
                                for x in 0..<width {
                                    let a = (UInt16(top[2 * x]) &+ UInt16(top[2 * x + 1]) &+ UInt16(bottom[2 * x])
                                             &+ UInt16(bottom[2 * x + 1])) >> 2
                                    destination[x] = mix(destination[x], source[x], a)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Warps `picture` (with `alpha`, nil: opaque) through `inverse` (canvas → picture pixels) into `warped` and
    /// `warpedAlpha`, both `region`-sized: warped pixel (x, y) is canvas pixel (region.x + x, region.y + y). Bilinear
    /// with 8 fractional bits, as ffmpeg's `perspective` (interpolation=linear): a chroma sample takes the map of the
    /// luma pixel at its top left, halved. The alpha is 0 where the canvas pixel maps outside the picture, so only the
    /// quad is drawn; the work is bounded by the region (the quad's bounding box), and samples are only computed
    /// where they can show (luma inside the quad, chroma where one of its four luma pixels is).
    static func warp(
        _ picture: PixelBuffer, alpha: PixelBuffer.Plane?, inverse: Homography, region: Region,
        into warped: inout PixelBuffer, warpedAlpha: inout [UInt8]
    ) {
        let count = region.width * region.height
        if warpedAlpha.count < count { warpedAlpha = [UInt8](repeating: 0, count: count) }
        let m = inverse.m
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let sourceWidth = picture.width, sourceHeight = picture.height
        let limitU = Double(sourceWidth << 8), limitV = Double(sourceHeight << 8)
        let regionWidth = region.width
        let outputStride = warped.planes[0].bytesPerRow
        // Luma and coverage in one pass over the region.
        warpedAlpha.withUnsafeMutableBufferPointer { coverageBuffer in
            picture.planes[0].bytes.withUnsafeBufferPointer { lumaBuffer in
                warped.planes[0].bytes.withUnsafeMutableBufferPointer { outputBuffer in
                    guard let coverage = coverageBuffer.baseAddress, let luma = lumaBuffer.baseAddress,
                          let output = outputBuffer.baseAddress else { return }
                    let lumaStride = picture.planes[0].bytesPerRow
                    let alphaBytes = alpha?.bytes ?? []
                    let alphaStride = alpha?.bytesPerRow ?? 0
                    alphaBytes.withUnsafeBufferPointer { alphaBuffer in
                        let alphaPlane = alphaBuffer.baseAddress
                        for y in 0..<region.height {
                            let canvasY = Double(region.y + y), canvasX = Double(region.x)
                            var numeratorU = m0 * canvasX + m1 * canvasY + m2
                            var numeratorV = m3 * canvasX + m4 * canvasY + m5
                            var denominator = m6 * canvasX + m7 * canvasY + m8
                            let row = output + y * outputStride, coverageRow = coverage + y * regionWidth
                            for x in 0..<regionWidth {
                                var cover: UInt8 = 0
                                if denominator != 0 {
                                    let scale = 256 / denominator
                                    let uf = numeratorU * scale, vf = numeratorV * scale
                                    if uf >= -0.5, vf >= -0.5, uf < limitU - 0.5, vf < limitV - 0.5 {
                                        // Rounded to nearest: truncating a non-negative value + ½ (no libm call).
                                        let u = Int(uf + 0.5), v = Int(vf + 0.5)
                                        row[x] = bilinearInside(luma, stride: lumaStride, width: sourceWidth,
                                                                height: sourceHeight, u: u, v: v)
                                        if let alphaPlane {
                                            cover = bilinearInside(alphaPlane, stride: alphaStride, width: sourceWidth,
                                                                   height: sourceHeight, u: u, v: v)
                                        } else {
                                            cover = 255
                                        }
                                    }
                                }
                                coverageRow[x] = cover
                                numeratorU += m0
                                numeratorV += m3
                                denominator += m6
                            }
                        }
                    }
                }
            }
        }
        // Chroma: the map of the luma pixel at the block's top left, halved; only for blocks the quad touches.
        for plane in 1...2 {
            let width = region.width >> 1, height = region.height >> 1
            let planeWidth = picture.rowBytes(ofPlane: plane), planeHeight = picture.rows(ofPlane: plane)
            let sourceStride = picture.planes[plane].bytesPerRow, chromaStride = warped.planes[plane].bytesPerRow
            warpedAlpha.withUnsafeBufferPointer { coverageBuffer in
                picture.planes[plane].bytes.withUnsafeBufferPointer { input in
                    warped.planes[plane].bytes.withUnsafeMutableBufferPointer { output in
                        guard let coverage = coverageBuffer.baseAddress, let input = input.baseAddress,
                              let output = output.baseAddress else { return }
                        for y in 0..<height {
                            let canvasY = Double(region.y + 2 * y), canvasX = Double(region.x)
                            var numeratorU = m0 * canvasX + m1 * canvasY + m2
                            var numeratorV = m3 * canvasX + m4 * canvasY + m5
                            var denominator = m6 * canvasX + m7 * canvasY + m8
                            let row = output + y * chromaStride
                            let top = coverage + 2 * y * regionWidth, bottom = top + regionWidth
                            for x in 0..<width {
                                let touched = top[2 * x] | top[2 * x + 1] | bottom[2 * x] | bottom[2 * x + 1]
                                // A subnormal denominator makes the scale infinite and 0 × ∞ a NaN, which Int() traps on.
                                if touched != 0, denominator != 0, case let scale = 256 / denominator, scale.isFinite {
                                    // Inside the picture give or take a pixel: clamp, as ffmpeg does at the edges;
                                    // rounded to nearest by truncating after an offset that makes it positive.
                                    let uf = min(max(numeratorU * scale, -1024), limitU + 1024) + 2048.5
                                    let vf = min(max(numeratorV * scale, -1024), limitV + 1024) + 2048.5
                                    let u = (Int(uf) - 2048) >> 1, v = (Int(vf) - 2048) >> 1
                                    row[x] = bilinear(input, stride: sourceStride, width: planeWidth,
                                                      height: planeHeight, u: u, v: v)
                                }
                                numeratorU += 2 * m0
                                numeratorV += 2 * m3
                                denominator += 2 * m6
                            }
                        }
                    }
                }
            }
        }
    }

    /// `bilinear` for (u, v) inside [0, width) × [0, height) in 1/256 pixels: only the right and bottom neighbours
    /// need clamping.
    @inline(__always)
    static func bilinearInside(_ plane: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, u: Int,
                               v: Int) -> UInt8 {
        let fu = UInt32(u & 255), fv = UInt32(v & 255)
        let x0 = u >> 8, y0 = v >> 8
        let x1 = x0 + 1 < width ? x0 + 1 : x0, y1 = y0 + 1 < height ? y0 + 1 : y0
        let top = plane + y0 * stride, bottom = plane + y1 * stride
        let upper = (256 &- fu) &* UInt32(top[x0]) &+ fu &* UInt32(top[x1])
        let lower = (256 &- fu) &* UInt32(bottom[x0]) &+ fu &* UInt32(bottom[x1])
        return UInt8(truncatingIfNeeded: ((256 &- fv) &* upper &+ fv &* lower &+ 32768) >> 16)
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
