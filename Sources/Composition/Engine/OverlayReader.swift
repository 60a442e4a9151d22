import MediaCore
import MediaIO
import Timeline

/// The frames of an overlay's picture or mask, decoded forward by MediaIO and converted once by libswscale to the
/// size they are drawn at (a mask: the canvas, full-range luma), with the picture's alpha kept when the file has it.
/// Sample and hold as the sequence's readers: `frame(at:)` gives the last frame at or before the time, the first
/// frame before it, the last one after the end of the file (so a still is its one frame forever).
final class OverlayReader {
    let path: String
    /// The JSON path of the timeline value naming the file, for errors (an edit that moves the overlay renumbers it).
    var jsonPath: String
    private var source: LibAVFileSource
    private(set) var shown: PixelBuffer
    private(set) var shownAlpha: PixelBuffer.Plane?
    private var shownTime: Fraction?
    private var next: PixelBuffer
    private var nextAlpha: PixelBuffer.Plane?
    private var nextTime: Fraction?
    private var reachedEnd = false
    private(set) var framesDecoded = 0
    private let pool: FramePool

    var width: Int { source.width }
    var height: Int { source.height }

    /// - Parameters:
    ///   - size: the size to convert to; nil keeps the file's (rounded down to even).
    ///   - mask: read only for its luma, full range (white 255), alpha dropped.
    init(path: String, jsonPath: String, size: Timeline.Overlay.Size?, matrix: YCbCrMatrix, mask: Bool,
         pool: FramePool) throws(CompositionError) {
        self.path = path
        self.jsonPath = jsonPath
        self.pool = pool
        do {
            source = try LibAVFileSource(path: path, format: .i420, matrix: matrix, outputSize: { width, height in
                if let size { return (size.width, size.height) }
                return (max(width & ~1, 2), max(height & ~1, 2))
            }, fullRange: mask)
        } catch {
            throw .source(jsonPath, "", error) // MediaIO's reason names the file
        }
        shown = pool.take(width: source.width, height: source.height)
        next = pool.take(width: source.width, height: source.height)
        keepsAlpha = !mask
    }

    private let keepsAlpha: Bool

    /// The frame for source time `time` (seconds after the file's first frame) and its alpha (nil: opaque).
    func frame(at time: Fraction) throws(CompositionError) -> (picture: PixelBuffer, alpha: PixelBuffer.Plane?) {
        if shownTime == nil {
            guard try decode(into: &shown, alpha: &shownAlpha, time: &shownTime) else {
                throw CompositionError(code: .source, reason: "\(path) has no video frames", path: jsonPath)
            }
        }
        // At the end of the file the last frame holds (a still's only frame): no seek back to it every frame.
        if !reachedEnd, let from = nextTime ?? shownTime, time - from > ItemReader.seekAhead { try skip(to: time) }
        while true {
            if nextTime == nil, !reachedEnd { _ = try decode(into: &next, alpha: &nextAlpha, time: &nextTime) }
            guard let candidate = nextTime, candidate <= time else { break }
            swap(&shown, &next)
            swap(&shownAlpha, &nextAlpha)
            shownTime = candidate
            nextTime = nil
        }
        return (shown, shownAlpha)
    }

    /// Seeks to the keyframe at or before `target` (an overlay's `in`, or a seek of the whole composition), leaving
    /// its first frame in `next` (`KeyframeSeek`: further back when the container gave a keyframe shown after it).
    private func skip(to target: Fraction) throws(CompositionError) {
        try KeyframeSeek.seek(to: target, seek: { (start: Fraction) throws(CompositionError) in
            do throws(MediaIOError) {
                try source.seekToKeyframe(atOrBefore: start.mediaTime())
            } catch {
                throw .source(jsonPath, path, error)
            }
            reachedEnd = false
            nextTime = nil
        }, decodeFirst: { () throws(CompositionError) -> Fraction? in
            try decode(into: &next, alpha: &nextAlpha, time: &nextTime) ? nextTime : nil
        })
    }

    private func decode(into buffer: inout PixelBuffer, alpha: inout PixelBuffer.Plane?,
                        time: inout Fraction?) throws(CompositionError) -> Bool {
        let pts: MediaTime?
        do {
            pts = keepsAlpha ? try source.nextFrame(into: &buffer, alpha: &alpha) : try source.nextFrame(into: &buffer)
        } catch {
            throw .source(jsonPath, path, error)
        }
        guard let pts else {
            reachedEnd = true
            return false
        }
        framesDecoded += 1
        time = Fraction(Int128(pts.value), Int128(pts.timescale))
        return true
    }

    /// Gives the buffers back to the pool; the reader is not used after this.
    func release() {
        pool.give(shown)
        pool.give(next)
    }
}
