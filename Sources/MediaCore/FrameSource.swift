import Bitstream
import EncoderSession

/// Where raw frames come from: the built-in test pattern, a Y4M stream, a file libavformat can open.
///
/// The caller owns the `PixelBuffer` and lends it to the source for each frame, so a loop of
/// ```
/// var buffer = source.makeBuffer()
/// while let time = try source.nextFrame(into: &buffer) { encode(buffer, time) }
/// ```
/// allocates nothing in steady state: the planes are copy-on-write arrays, and as long as the caller keeps no
/// other copy of `buffer` across the call, the source writes into the same storage every time.
public protocol FrameSource {
    /// The layout of the frames this source produces.
    var format: PixelFormat { get }
    var width: Int { get }
    var height: Int { get }
    /// Nominal frames per second (a file's average rate; timestamps are what count).
    var frameRate: Rational { get }

    /// Fills `buffer` with the next frame and returns its presentation time, or nil at the end of the input.
    /// A buffer of the wrong format or size is replaced by one that fits (an allocation, once).
    mutating func nextFrame(into buffer: inout PixelBuffer) throws(MediaIOError) -> MediaTime?
}

extension FrameSource {
    /// A buffer with this source's format and size, ready to be passed to `nextFrame(into:)`.
    public func makeBuffer() -> PixelBuffer {
        PixelBuffer(format: format, width: width, height: height)
    }

    /// Convenience for callers that do not care about reuse: a fresh buffer per frame.
    public mutating func nextFrame() throws(MediaIOError) -> (buffer: PixelBuffer, pts: MediaTime)? {
        var buffer = makeBuffer()
        guard let pts = try nextFrame(into: &buffer) else { return nil }
        return (buffer, pts)
    }
}

extension PixelBuffer {
    /// True when this buffer has the given layout and size and tightly enough sized planes to be written into.
    func fits(format: PixelFormat, width: Int, height: Int) -> Bool {
        guard self.format == format, self.width == width, self.height == height,
              planes.count == format.planeCount else { return false }
        for index in 0..<planes.count {
            let plane = planes[index]
            let rows = rows(ofPlane: index)
            let rowBytes = rowBytes(ofPlane: index)
            guard plane.bytesPerRow >= rowBytes, plane.bytes.count >= plane.bytesPerRow * (rows - 1) + rowBytes else {
                return false
            }
        }
        return true
    }

    /// Replaces `buffer` with a fresh one when it does not fit; keeps it (and its storage) when it does.
    static func prepare(_ buffer: inout PixelBuffer, format: PixelFormat, width: Int, height: Int) {
        if !buffer.fits(format: format, width: width, height: height) {
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
