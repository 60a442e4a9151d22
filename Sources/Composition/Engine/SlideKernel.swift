import MediaCore
import Timeline

/// Slide (the incoming picture moves in over the outgoing one, which stays) and push (both move, the outgoing one
/// pushed out), on the I420 planes by row copies: nothing is blended, so nothing is computed per pixel.
///
/// Geometry is ffmpeg's `xfade=slideleft/slideright/slideup/slidedown` (which are pushes): moving left at progress p,
/// the boundary between the pictures is at column s = ⌊(1 − p)·W⌋; left of it the outgoing picture (shifted left by
/// W − s when pushed), right of it the incoming one's first W − s columns. Right, up and down mirror it. Chroma
/// moves by the boundary halved (4:2:0 cannot move by half a sample).
extension PlaneKernels {
    static func slide(_ outgoing: PixelBuffer, _ incoming: PixelBuffer, into destination: inout PixelBuffer,
                      direction: Timeline.Transition.Direction, progress: Double, push: Bool) {
        let p = min(max(progress, 0), 1)
        let horizontal = direction == .left || direction == .right
        let extent = horizontal ? outgoing.width : outgoing.height
        let remaining = Int(((1 - p) * Double(extent)).rounded(.down)) // s: what the outgoing picture keeps
        // The boundary in luma units, counted from the left (top); the incoming picture is on its far side when
        // moving left (up), on its near side when moving right (down).
        let towardsStart = direction == .left || direction == .up
        let boundary = towardsStart ? remaining : extent - remaining
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let size = horizontal ? outgoing.rowBytes(ofPlane: plane) : outgoing.rows(ofPlane: plane)
            let cut = min(boundary >> shift, size)
            // Each part of the output: [start, end) of the output shows source [start + offset, end + offset).
            var parts: [(from: PixelBuffer, start: Int, end: Int, offset: Int)] = []
            if towardsStart {
                parts.append((outgoing, 0, cut, push ? size - cut : 0))
                parts.append((incoming, cut, size, -cut))
            } else {
                parts.append((incoming, 0, cut, size - cut))
                parts.append((outgoing, cut, size, push ? -cut : 0))
            }
            for part in parts where part.start < part.end {
                let rows = outgoing.rows(ofPlane: plane), rowBytes = outgoing.rowBytes(ofPlane: plane)
                copy(plane: plane, from: part.from, into: &destination,
                     rows: horizontal ? 0..<rows : part.start..<part.end,
                     columns: horizontal ? part.start..<part.end : 0..<rowBytes,
                     offset: horizontal ? part.offset : part.offset * part.from.planes[plane].bytesPerRow)
            }
        }
    }

    /// The rectangle `rows` × `columns` of `plane` from the same rectangle of `source` moved by `offset` bytes.
    private static func copy(plane: Int, from source: PixelBuffer, into destination: inout PixelBuffer,
                             rows: Range<Int>, columns: Range<Int>, offset: Int) {
        let sourceStride = source.planes[plane].bytesPerRow, destinationStride = destination.planes[plane].bytesPerRow
        source.planes[plane].bytes.withUnsafeBufferPointer { input in
            destination.planes[plane].bytes.withUnsafeMutableBufferPointer { output in
                guard let input = input.baseAddress, let output = output.baseAddress else { return }
                for y in rows {
                    (output + y * destinationStride + columns.lowerBound)
                        .update(from: input + y * sourceStride + columns.lowerBound + offset, count: columns.count)
                }
            }
        }
    }
}
