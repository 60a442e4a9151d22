/// Why a `PixelBuffer` cannot be read as the layout a consumer expects. The one geometry check shared by the encoder
/// (which reports it as `EncoderSessionError.invalidPixelBuffer`) and the sources (which replace a buffer that does
/// not fit instead of failing).
public enum PixelBufferLayoutError: Error, Sendable, Hashable, CustomStringConvertible {
    case format(PixelFormat, expected: PixelFormat)
    case size(width: Int, height: Int, expectedWidth: Int, expectedHeight: Int)
    case planeCount(Int, format: PixelFormat)
    /// A plane's `bytesPerRow` is shorter than one row of its pixels.
    case strideTooSmall(plane: Int, bytesPerRow: Int, rowBytes: Int)
    /// A plane's bytes end before its last row does.
    case planeTooShort(plane: Int, byteCount: Int, rows: Int, bytesPerRow: Int)

    public var description: String {
        switch self {
        case let .format(format, expected):
            "buffer is \(format), session expects \(expected)"
        case let .size(width, height, expectedWidth, expectedHeight):
            "buffer is \(width)×\(height), session expects \(expectedWidth)×\(expectedHeight)"
        case let .planeCount(count, format):
            "\(format) needs \(format.planeCount) planes, buffer has \(count)"
        case let .strideTooSmall(plane, bytesPerRow, rowBytes):
            "plane \(plane): bytesPerRow \(bytesPerRow) < row of \(rowBytes) bytes"
        case let .planeTooShort(plane, byteCount, rows, bytesPerRow):
            "plane \(plane): \(byteCount) bytes, too few for \(rows) rows of stride \(bytesPerRow)"
        }
    }
}

extension PixelBuffer {
    /// Checks that this buffer has the given format and size and that every row of every plane lies inside that
    /// plane's bytes, so a consumer may read (or write) `rows(ofPlane:)` rows of `rowBytes(ofPlane:)` bytes at
    /// `bytesPerRow` steps without a bounds check. `width` and `height` are the consumer's own, already validated
    /// (positive) geometry.
    public func checkLayout(format: PixelFormat, width: Int, height: Int) throws(PixelBufferLayoutError) {
        guard self.format == format else { throw .format(self.format, expected: format) }
        guard self.width == width, self.height == height else {
            throw .size(width: self.width, height: self.height, expectedWidth: width, expectedHeight: height)
        }
        guard planes.count == format.planeCount else { throw .planeCount(planes.count, format: format) }
        for (index, plane) in planes.enumerated() {
            let rowBytes = rowBytes(ofPlane: index)
            let rows = rows(ofPlane: index)
            guard plane.bytesPerRow >= rowBytes else {
                throw .strideTooSmall(plane: index, bytesPerRow: plane.bytesPerRow, rowBytes: rowBytes)
            }
            // A hostile stride could overflow the product: reported, not trapped.
            let needed = plane.bytesPerRow.multipliedReportingOverflow(by: rows - 1)
            guard !needed.overflow, needed.partialValue + rowBytes <= plane.bytes.count else {
                throw .planeTooShort(
                    plane: index, byteCount: plane.bytes.count, rows: rows, bytesPerRow: plane.bytesPerRow)
            }
        }
    }

    /// True when `checkLayout(format:width:height:)` passes.
    public func matches(format: PixelFormat, width: Int, height: Int) -> Bool {
        do {
            try checkLayout(format: format, width: width, height: height)
            return true
        } catch {
            return false
        }
    }
}
