import MediaCore

/// Rectangle fills on a 4:2:0 `PixelBuffer`, clipped to the picture, done a row at a time with bulk stores.
///
/// Coordinates are luma pixels. Chroma is only ever painted neutral (Cb = Cr = 128) outside the precomputed
/// background, which is what lets NV12's interleaved CbCr plane be filled with a plain byte fill too.
extension PixelBuffer {
    /// Sets luma to `luma` and chroma to neutral in the clipped rectangle.
    mutating func fillGray(x: Int, y: Int, width: Int, height: Int, luma: UInt8) {
        let x0 = max(x, 0), y0 = max(y, 0)
        let x1 = min(x + width, self.width), y1 = min(y + height, self.height)
        guard x0 < x1, y0 < y1 else { return }
        fillBytes(plane: 0, column: x0, row: y0, count: x1 - x0, rows: y1 - y0, value: luma)
        // The chroma sample pair covering a luma column pair: widen to even bounds so a box edge is never tinted.
        let cx0 = x0 / 2, cx1 = (x1 + 1) / 2, cy0 = y0 / 2, cy1 = (y1 + 1) / 2
        switch format {
        case .nv12:
            fillBytes(plane: 1, column: cx0 * 2, row: cy0, count: (cx1 - cx0) * 2, rows: cy1 - cy0, value: 128)
        case .i420:
            fillBytes(plane: 1, column: cx0, row: cy0, count: cx1 - cx0, rows: cy1 - cy0, value: 128)
            fillBytes(plane: 2, column: cx0, row: cy0, count: cx1 - cx0, rows: cy1 - cy0, value: 128)
        }
    }

    /// Fills `count` bytes of each of `rows` rows of one plane. The caller has clipped to the plane.
    mutating func fillBytes(plane index: Int, column: Int, row: Int, count: Int, rows: Int, value: UInt8) {
        let stride = planes[index].bytesPerRow
        planes[index].bytes.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            for r in row..<(row + rows) {
                (base + r * stride + column).update(repeating: value, count: count)
            }
        }
    }

    /// Copies every plane of `source` (same format and size) into this buffer: one bulk copy per plane when the
    /// strides agree, one per row when they do not.
    mutating func copyPixels(from source: PixelBuffer) {
        for index in 0..<planes.count {
            let rowBytes = rowBytes(ofPlane: index)
            let rows = rows(ofPlane: index)
            let dstStride = planes[index].bytesPerRow
            let srcStride = source.planes[index].bytesPerRow
            source.planes[index].bytes.withUnsafeBufferPointer { src in
                planes[index].bytes.withUnsafeMutableBufferPointer { dst in
                    guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                    if dstStride == srcStride {
                        d.update(from: s, count: srcStride * (rows - 1) + rowBytes)
                    } else {
                        for r in 0..<rows {
                            (d + r * dstStride).update(from: s + r * srcStride, count: rowBytes)
                        }
                    }
                }
            }
        }
    }

    /// Draws `text` with `BitmapFont` at `scale`, its top-left corner at (x, y), lit pixels at `luma`.
    /// Unlit pixels are left alone: the caller paints the box behind the text first.
    mutating func drawText(_ text: some Collection<UInt8>, x: Int, y: Int, scale: Int, luma: UInt8) {
        var penX = x
        for character in text {
            if let rows = BitmapFont.rows(of: character) {
                for (rowIndex, bits) in zip(0..., rows) where bits != 0 {
                    // Runs of lit pixels become one fill each: fewer, longer stores.
                    var column = 0
                    while column < BitmapFont.glyphWidth {
                        let mask = UInt8(1) << UInt8(BitmapFont.glyphWidth - 1 - column)
                        guard bits & mask != 0 else { column += 1; continue }
                        var runEnd = column + 1
                        while runEnd < BitmapFont.glyphWidth,
                              bits & (UInt8(1) << UInt8(BitmapFont.glyphWidth - 1 - runEnd)) != 0 {
                            runEnd += 1
                        }
                        fillLuma(x: penX + column * scale, y: y + rowIndex * scale,
                                 width: (runEnd - column) * scale, height: scale, luma: luma)
                        column = runEnd
                    }
                }
            }
            penX += (BitmapFont.glyphWidth + BitmapFont.spacing) * scale
        }
    }

    /// Luma-only clipped fill (chroma left as it is).
    mutating func fillLuma(x: Int, y: Int, width: Int, height: Int, luma: UInt8) {
        let x0 = max(x, 0), y0 = max(y, 0)
        let x1 = min(x + width, self.width), y1 = min(y + height, self.height)
        guard x0 < x1, y0 < y1 else { return }
        fillBytes(plane: 0, column: x0, row: y0, count: x1 - x0, rows: y1 - y0, value: luma)
    }
}
