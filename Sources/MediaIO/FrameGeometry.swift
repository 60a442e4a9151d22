import MediaCore

extension PixelBuffer {
    /// Replaces `buffer` with a fresh one when it does not have this layout and size (or its planes are too short to
    /// be written into); keeps it, and its storage, when it does.
    static func prepare(_ buffer: inout PixelBuffer, format: PixelFormat, width: Int, height: Int) {
        if !buffer.matches(format: format, width: width, height: height) {
            buffer = PixelBuffer(format: format, width: width, height: height)
        }
    }
}

/// Checks a requested output geometry: positive, even (4:2:0 chroma needs whole chroma samples in this project's
/// encoders) and within `maximumDimension`.
func validateGeometry(width: Int, height: Int, file: String = #fileID, line: UInt = #line) throws(MediaIOError) {
    guard width > 0, height > 0, width % 2 == 0, height % 2 == 0 else {
        throw MediaIOError(code: .invalidArgument, reason: "frame size \(width)x\(height) must be positive and even",
                           file: file, line: line)
    }
    guard width <= maximumDimension, height <= maximumDimension else {
        throw MediaIOError(code: .limitExceeded,
                           reason: "frame size \(width)x\(height) exceeds \(maximumDimension) pixels per side",
                           file: file, line: line)
    }
}

/// Largest width or height any source accepts or produces. H.264 level 6.2 tops out at 8192×4320 (Table A-1);
/// twice that leaves room for odd aspect ratios while bounding a hostile header's allocation to ~400 MB.
public let maximumDimension = 16384
