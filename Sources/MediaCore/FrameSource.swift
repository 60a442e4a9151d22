/// Where raw frames come from: MediaIO's test pattern, Y4M streams and files libavformat opens, and later a
/// composition of clips.
///
/// The caller owns the `PixelBuffer` and lends it to the source for each frame, so a loop of
/// ```
/// var buffer = source.makeBuffer()
/// while let time = try source.nextFrame(into: &buffer) { encode(buffer, time) }
/// ```
/// allocates nothing in steady state: the planes are copy-on-write arrays, and as long as the caller keeps no
/// other copy of `buffer` across the call, the source writes into the same storage every time.
///
/// `Failure` is the one error type a source throws (MediaIO's sources throw `MediaIOError`), so callers keep typed
/// throws; code that holds `any FrameSource` sees `any Error`, `any FrameSource<MediaIOError>` keeps the type.
public protocol FrameSource<Failure> {
    associatedtype Failure: Error

    /// The layout of the frames this source produces.
    var format: PixelFormat { get }
    var width: Int { get }
    var height: Int { get }
    /// Nominal frames per second (a file's average rate; timestamps are what count).
    var frameRate: Rational { get }

    /// Fills `buffer` with the next frame and returns its presentation time, or nil at the end of the input.
    /// A buffer of the wrong format or size is replaced by one that fits (an allocation, once).
    mutating func nextFrame(into buffer: inout PixelBuffer) throws(Failure) -> MediaTime?
}

extension FrameSource {
    /// A buffer with this source's format and size, ready to be passed to `nextFrame(into:)`.
    public func makeBuffer() -> PixelBuffer {
        PixelBuffer(format: format, width: width, height: height)
    }

    /// Convenience for callers that do not care about reuse: a fresh buffer per frame.
    public mutating func nextFrame() throws(Failure) -> (buffer: PixelBuffer, pts: MediaTime)? {
        var buffer = makeBuffer()
        guard let pts = try nextFrame(into: &buffer) else { return nil }
        return (buffer, pts)
    }
}

/// A source that can also jump: the next `nextFrame` returns the frame shown at a given time. Composition (speed,
/// reverse, trimming) needs this; a pipe or a live camera cannot offer it, so it is a refinement that only sources
/// with random access adopt, not a requirement every source fakes.
///
/// Sources that do not conform today: `Y4MReader` (stdin is a pipe, and a file's FRAME lines may carry parameters of
/// any length, so finding frame N means an index of offsets), `LibAVFileSource` (needs `av_seek_frame` plus decoding
/// from the previous keyframe: a GOP cache is the composition work's job).
public protocol SeekableFrameSource<Failure>: FrameSource {
    /// Positions the source so that the next `nextFrame(into:)` returns the frame whose display interval contains
    /// `time` (the first frame for a time before it, nothing for a time after the end). A time the source cannot reach
    /// (negative, not a valid `MediaTime`) throws.
    mutating func seek(to time: MediaTime) throws(Failure)
}
