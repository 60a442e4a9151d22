import MediaCore

extension PixelBuffer {
    /// Lends raw pointers to up to three planes at once (nil for planes the format lacks), for C calls that fill
    /// all planes in one go (`sws_scale`). The planes' arrays are moved out for the call and back afterwards, so
    /// no copy is made and the exclusivity rules hold; pointers must not escape `body`.
    mutating func withMutablePlanePointers<R>(
        _ body: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) -> R
    ) -> R {
        var first: [UInt8] = [], second: [UInt8] = [], third: [UInt8] = []
        let count = planes.count
        if count > 0 { swap(&first, &planes[0].bytes) }
        if count > 1 { swap(&second, &planes[1].bytes) }
        if count > 2 { swap(&third, &planes[2].bytes) }
        defer {
            if count > 0 { swap(&first, &planes[0].bytes) }
            if count > 1 { swap(&second, &planes[1].bytes) }
            if count > 2 { swap(&third, &planes[2].bytes) }
        }
        return first.withUnsafeMutableBufferPointer { a in
            second.withUnsafeMutableBufferPointer { b in
                third.withUnsafeMutableBufferPointer { c in
                    body(a.isEmpty ? nil : a.baseAddress, b.isEmpty ? nil : b.baseAddress, c.isEmpty ? nil : c.baseAddress)
                }
            }
        }
    }

    /// Bytes per row of plane `index` as C wants it, 0 for a plane the format lacks (no array built per frame).
    func stride(ofPlane index: Int) -> Int32 {
        index < planes.count ? Int32(planes[index].bytesPerRow) : 0
    }
}
