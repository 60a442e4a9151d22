import MediaCore
import MediaIO
import Timeline

/// The grayscale map of a luma wipe (MLT's `luma` transition), at the canvas's size for luma and at half size for
/// the 4:2:0 chroma planes. A chroma sample switches with the last luma sample of its 2×2 block (the one libswscale's
/// nearest-neighbour 2:1 scaling keeps): on a hard edge through the block it must go one way or the other, and
/// this way it agrees with ffmpeg's 4:4:4 `xfade` brought to 4:2:0, the test oracle. Values are 16 bits, 0…65535,
/// so a linear wipe across 8192 pixels still moves one pixel at a time; a pixel switches from the outgoing to the
/// incoming picture when the sweeping threshold passes its value, dark first.
///
/// Made once per transition (a shape's formula, or a grayscale image scaled to the canvas by libswscale), then
/// applied every frame by `wipe` on the I420 planes themselves: no RGB round trip.
public struct LumaMap: Sendable {
    public let width: Int
    public let height: Int
    /// `width`×`height`, rows packed.
    public let luma: [UInt16]
    /// ((`width` + 1) / 2)×((`height` + 1) / 2), rows packed: the chroma planes' size.
    public let chroma: [UInt16]

    /// Map values are fractions of this: a value v stands for v / 65536 of the way through the transition.
    public static let scale = 65536

    /// A map from full-size values (`luma.count` is `width`×`height`); the chroma map takes every second value of
    /// every second row (the last of an odd side).
    init(width: Int, height: Int, luma: [UInt16]) {
        self.width = width
        self.height = height
        self.luma = luma
        // PixelBuffer's chroma planes: (side + 1) / 2.
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        var chroma = [UInt16](repeating: 0, count: chromaWidth * chromaHeight)
        for y in 0..<chromaHeight {
            for x in 0..<chromaWidth {
                chroma[y * chromaWidth + x] = luma[min(2 * y + 1, height - 1) * width + min(2 * x + 1, width - 1)]
            }
        }
        self.chroma = chroma
    }

    /// The map of a shape (not `.image`, which `LumaMap.image` reads) at the canvas's size.
    public init(shape: Timeline.Transition.Wipe.Shape, width: Int, height: Int, invert: Bool = false) {
        var values = [UInt16](repeating: 0, count: width * height)
        let order = WipeShapes.order(shape, width: width, height: height)
        let reverse = invert != WipeShapes.isReversed(shape)
        for y in 0..<height {
            for x in 0..<width {
                // order is in [0, 1); 65536 × that is below 65536 but rounding can reach it: clamp.
                let value = UInt16(min(65535, Int(order(x, y) * Double(Self.scale))))
                values[y * width + x] = reverse ? 65535 - value : value
            }
        }
        self.init(width: width, height: height, luma: values)
    }

    /// A grayscale image as a map, scaled to `width`×`height` (aspect not kept, as MLT does) and read once: black
    /// (Y′ 16) is 0, white (Y′ 235) is 65535.
    public static func image(path: String, width: Int, height: Int, invert: Bool = false) throws(CompositionError) -> LumaMap {
        var picture = PixelBuffer(format: .i420, width: width, height: height)
        let decoded: MediaTime?
        do {
            var source = try LibAVFileSource(path: path, format: .i420, matrix: .bt709,
                                             outputSize: { _, _ in (width, height) })
            decoded = try source.nextFrame(into: &picture)
        } catch {
            throw CompositionError(code: .source, reason: "wipe map", underlying: error)
        }
        guard decoded != nil else {
            throw CompositionError(code: .source, reason: "\(path) has no picture to use as a wipe map")
        }
        let stride = picture.planes[0].bytesPerRow
        var values = [UInt16](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let luma = Int(picture.planes[0].bytes[y * stride + x])
                let value = UInt16(min(65535, max(0, (luma - 16) * 65535 / 219)))
                values[y * width + x] = invert ? 65535 - value : value
            }
        }
        return LumaMap(width: width, height: height, luma: values)
    }

    /// `destination` = the wipe of `outgoing` by `incoming` at `progress` (0 all outgoing, 1 all incoming): a pixel
    /// of map value m shows the incoming picture with weight clamp((T − m) / S, 0, 1), S = max(1, softness × 65536)
    /// and T = ⌈progress × (65535 + S)⌉, so progress 0 and 1 are exactly the outgoing and the incoming pictures
    /// whatever the softness, and softness 0 is a hard edge (incoming where m < T).
    ///
    /// All three buffers must be I420 of the map's size (`CompositionError.Code.layout` otherwise: the loops run
    /// over unsafe pointers, so the layouts are checked first).
    public func wipe(_ outgoing: PixelBuffer, _ incoming: PixelBuffer, into destination: inout PixelBuffer,
                     progress: Double, softness: Double) throws(CompositionError) {
        for (name, buffer) in [("outgoing", outgoing), ("incoming", incoming), ("destination", destination)] {
            do {
                try buffer.checkLayout(format: .i420, width: width, height: height)
            } catch {
                throw CompositionError(code: .layout, reason: "wipe: the \(name) frame is not the map's I420 layout: \(error)")
            }
        }
        let ramp = max(1, min(Self.scale, Int((softness * Double(Self.scale)).rounded())))
        let threshold = Int((min(max(progress, 0), 1) * Double(65535 + ramp)).rounded(.up))
        for plane in 0..<3 {
            let map = plane == 0 ? luma : chroma
            if ramp >= PlaneKernels.shortRampLimit {
                PlaneKernels.wipe(plane: plane, outgoing, incoming, into: &destination, map: map,
                                  progress: progress, ramp: ramp)
            } else if ramp > 1 {
                PlaneKernels.wipe(plane: plane, outgoing, incoming, into: &destination, map: map,
                                  threshold: Int32(threshold), ramp: Int32(ramp))
            } else {
                PlaneKernels.wipe(plane: plane, outgoing, incoming, into: &destination, map: map,
                                  below: Int32(threshold))
            }
        }
    }
}

extension PlaneKernels {
    /// Calls `row` with each row of `plane` of the map (packed rows of the plane's width), the two inputs and the
    /// output, and the samples in a row. Inlined with `row`, so each kernel's loop is compiled (and vectorised) in place.
    @inline(__always)
    static func forEachRow(
        plane: Int, _ a: PixelBuffer, _ b: PixelBuffer, into destination: inout PixelBuffer, map: [UInt16],
        _ row: (UnsafePointer<UInt16>, UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int) -> Void
    ) {
        let rows = a.rows(ofPlane: plane), rowBytes = a.rowBytes(ofPlane: plane)
        let strideA = a.planes[plane].bytesPerRow, strideB = b.planes[plane].bytesPerRow
        let strideOut = destination.planes[plane].bytesPerRow
        map.withUnsafeBufferPointer { mapValues in
            a.planes[plane].bytes.withUnsafeBufferPointer { inputA in
                b.planes[plane].bytes.withUnsafeBufferPointer { inputB in
                    destination.planes[plane].bytes.withUnsafeMutableBufferPointer { output in
                        guard let mapValues = mapValues.baseAddress, let inputA = inputA.baseAddress,
                              let inputB = inputB.baseAddress, let output = output.baseAddress else { return }
                        for y in 0..<rows {
                            row(mapValues + y * rowBytes, inputA + y * strideA, inputB + y * strideB,
                                output + y * strideOut, rowBytes)
                        }
                    }
                }
            }
        }
    }

    /// One plane of a hard-edged `LumaMap.wipe`: the incoming sample where the map is below `threshold` (≤ 65536),
    /// else the outgoing one, selected by a mask (m − T)'s sign bit makes rather than a branch, so the loop
    /// vectorises (a compare-and-select on 16-bit map values compiled to a scalar cmov loop).
    static func wipe(plane: Int, _ a: PixelBuffer, _ b: PixelBuffer, into destination: inout PixelBuffer,
                     map: [UInt16], below threshold: Int32) {
        forEachRow(plane: plane, a, b, into: &destination, map: map) { rowMap, rowA, rowB, rowOut, count in
            for x in 0..<count {
                // All ones where m < T (m − T is negative; both ≤ 65536, no overflow), else 0.
                let mask = UInt8(truncatingIfNeeded: (Int32(truncatingIfNeeded: rowMap[x]) &- threshold) >> 31)
                rowOut[x] = (rowB[x] & mask) | (rowA[x] & ~mask)
            }
        }
    }

    /// Ramps at least this wide (in 16-bit map units; softness ≥ 1/128) take the 16-bit path below.
    static let shortRampLimit = 514

    /// One plane of a soft `LumaMap.wipe` in 16-bit lanes (twice the 32-bit path's): the map's top 15 bits m, the
    /// ramp S = ramp / 2 ≥ 257 and T = ⌈p·(32767 + S)⌉ all fit 16 bits; d = min(T ⊖ m, S) (saturating), the weight
    /// w = d · ⌈2²⁴ / S⌉ >> 16 in 1/256 (exactly 0 at d = 0 and 256 at d = S, since S < 2¹⁶), and
    /// out = (a·(256 − w) + b·w + 128) >> 8 ≤ 255·256 + 128.
    static func wipe(plane: Int, _ a: PixelBuffer, _ b: PixelBuffer, into destination: inout PixelBuffer,
                     map: [UInt16], progress: Double, ramp: Int) {
        let halfRamp = ramp / 2
        let threshold = UInt16((min(max(progress, 0), 1) * Double(32767 + halfRamp)).rounded(.up))
        let ramp16 = UInt16(halfRamp), scale = UInt32(((1 << 24) + halfRamp - 1) / halfRamp)
        forEachRow(plane: plane, a, b, into: &destination, map: map) { rowMap, rowA, rowB, rowOut, count in
            for x in 0..<count {
                let m = rowMap[x] >> 1
                let d = min(threshold > m ? threshold &- m : 0, ramp16)
                let w = UInt16(truncatingIfNeeded: (UInt32(d) &* scale) >> 16)
                let sum = UInt16(rowA[x]) &* (256 &- w) &+ UInt16(rowB[x]) &* w &+ 128
                rowOut[x] = UInt8(truncatingIfNeeded: sum >> 8)
            }
        }
    }

    /// One plane of a `LumaMap.wipe` with a short ramp (2 ≤ S < `shortRampLimit`: finer than the 16-bit path's 15-bit
    /// map): weight w = ⌈clamp(T − m, 0, S) · (2²⁸ / S) / 2¹⁶⌉ in units of 1/4096, then
    /// out = (a·(4096 − w) + b·w + 2048) >> 12. Integer lanes only, so the loop vectorises.
    static func wipe(plane: Int, _ a: PixelBuffer, _ b: PixelBuffer, into destination: inout PixelBuffer,
                     map: [UInt16], threshold: Int32, ramp: Int32) {
        // ramp ≤ 65536, so d · scale ≤ 2²⁸ and adding 2¹⁶ − 1 stays far inside 32 bits.
        let scale = UInt32((1 << 28) / Int(ramp))
        let one = weightOne, half = weightOne >> 1
        forEachRow(plane: plane, a, b, into: &destination, map: map) { rowMap, rowA, rowB, rowOut, count in
            for x in 0..<count {
                let d = min(max(threshold &- Int32(truncatingIfNeeded: rowMap[x]), 0), ramp)
                let w = (UInt32(truncatingIfNeeded: d) &* scale &+ 0xFFFF) >> 16
                // ≤ 255 · 4096 + 2048: the weights add up to 4096.
                let sum = UInt32(rowA[x]) &* (one &- w) &+ UInt32(rowB[x]) &* w &+ half
                rowOut[x] = UInt8(truncatingIfNeeded: sum >> weightBits)
            }
        }
    }
}
