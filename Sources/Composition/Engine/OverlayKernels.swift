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

    /// v / 255 rounded to nearest, exact for v in 0…255·255 (ffmpeg's FAST_DIV255).
    @inline(__always)
    static func divide255(_ value: UInt32) -> UInt32 {
        ((value &+ 128) &* 257) >> 16
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
                    for y in 0..<region.height {
                        let row = input + (alphaY + y) * stride + alphaX, out = output + y * width
                        if opacity == 255 {
                            out.update(from: row, count: width)
                        } else {
                            for x in 0..<width {
                                out[x] = UInt8(truncatingIfNeeded: divide255(UInt32(row[x]) &* opacity))
                            }
                        }
                    }
                }
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
                        out[x] = UInt8(truncatingIfNeeded: divide255(UInt32(out[x]) &* UInt32(row[x])))
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
                                    let a = UInt32(w[x])
                                    let sum = UInt32(destination[x]) &* (255 &- a) &+ UInt32(source[x]) &* a
                                    destination[x] = UInt8(truncatingIfNeeded: divide255(sum))
                                }
                            } else {
                                // The chroma sample covers a 2×2 block of luma weights: their mean, truncated, as
                                // ffmpeg's overlay averages the alpha plane for 4:2:0.
                                let top = weight + 2 * y * weightWidth, bottom = top + weightWidth
                                for x in 0..<width {
                                    let a = (UInt32(top[2 * x]) &+ UInt32(top[2 * x + 1]) &+ UInt32(bottom[2 * x])
                                             &+ UInt32(bottom[2 * x + 1])) >> 2
                                    let sum = UInt32(destination[x]) &* (255 &- a) &+ UInt32(source[x]) &* a
                                    destination[x] = UInt8(truncatingIfNeeded: divide255(sum))
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
    /// quad is drawn; the work is bounded by the region (the quad's bounding box).
    static func warp(
        _ picture: PixelBuffer, alpha: PixelBuffer.Plane?, inverse: Homography, region: Region,
        into warped: inout PixelBuffer, warpedAlpha: inout [UInt8]
    ) {
        let count = region.width * region.height
        if warpedAlpha.count < count { warpedAlpha = [UInt8](repeating: 0, count: count) }
        let m = inverse.m
        let sourceWidth = picture.width, sourceHeight = picture.height
        let limitU = sourceWidth << 8, limitV = sourceHeight << 8
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let width = region.width >> shift, height = region.height >> shift
            let planeWidth = picture.rowBytes(ofPlane: plane), planeHeight = picture.rows(ofPlane: plane)
            let sourceStride = picture.planes[plane].bytesPerRow, outputStride = warped.planes[plane].bytesPerRow
            picture.planes[plane].bytes.withUnsafeBufferPointer { input in
                warped.planes[plane].bytes.withUnsafeMutableBufferPointer { output in
                    guard let input = input.baseAddress, let output = output.baseAddress else { return }
                    for y in 0..<height {
                        let canvasY = Double(region.y + (y << shift))
                        let canvasX0 = Double(region.x)
                        let step = Double(1 << shift)
                        var numeratorU = m[0] * canvasX0 + m[1] * canvasY + m[2]
                        var numeratorV = m[3] * canvasX0 + m[4] * canvasY + m[5]
                        var denominator = m[6] * canvasX0 + m[7] * canvasY + m[8]
                        let row = output + y * outputStride
                        for x in 0..<width {
                            var u = 0, v = 0
                            if denominator > 0 || denominator < 0 {
                                let scale = 256 / denominator
                                u = Int(clamping: Int64((numeratorU * scale).rounded(.toNearestOrEven).clamped(-1e9, 1e9)))
                                v = Int(clamping: Int64((numeratorV * scale).rounded(.toNearestOrEven).clamped(-1e9, 1e9)))
                            }
                            if shift == 1 { (u, v) = (u >> 1, v >> 1) }
                            row[x] = bilinear(input, stride: sourceStride, width: planeWidth, height: planeHeight, u: u, v: v)
                            numeratorU += m[0] * step
                            numeratorV += m[3] * step
                            denominator += m[6] * step
                        }
                    }
                }
            }
        }
        // Coverage: the picture's alpha (or 255) where the luma pixel maps inside [0, w) × [0, h), else 0.
        warpedAlpha.withUnsafeMutableBufferPointer { output in
            guard let output = output.baseAddress else { return }
            func fill(_ sample: (Int, Int) -> UInt8) {
                for y in 0..<region.height {
                    let canvasY = Double(region.y + y), canvasX0 = Double(region.x)
                    var numeratorU = m[0] * canvasX0 + m[1] * canvasY + m[2]
                    var numeratorV = m[3] * canvasX0 + m[4] * canvasY + m[5]
                    var denominator = m[6] * canvasX0 + m[7] * canvasY + m[8]
                    let row = output + y * region.width
                    for x in 0..<region.width {
                        var value: UInt8 = 0
                        if denominator > 0 || denominator < 0 {
                            let scale = 256 / denominator
                            let u = (numeratorU * scale).rounded(.toNearestOrEven)
                            let v = (numeratorV * scale).rounded(.toNearestOrEven)
                            if u >= 0, v >= 0, u < Double(limitU), v < Double(limitV) { value = sample(Int(u), Int(v)) }
                        }
                        row[x] = value
                        numeratorU += m[0]
                        numeratorV += m[3]
                        denominator += m[6]
                    }
                }
            }
            if let alpha {
                alpha.bytes.withUnsafeBufferPointer { input in
                    guard let input = input.baseAddress else { return }
                    fill { u, v in bilinear(input, stride: alpha.bytesPerRow, width: sourceWidth, height: sourceHeight, u: u, v: v) }
                }
            } else {
                fill { _, _ in 255 }
            }
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

extension Double {
    @inline(__always)
    fileprivate func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(Swift.max(self, low), high) }
}
