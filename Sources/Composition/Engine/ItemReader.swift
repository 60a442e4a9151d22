import MediaCore
import MediaIO
import Timeline

/// The frames of one item with a file (a clip or a still), decoded in order by MediaIO, converted once by
/// libswscale to the item's placed size in the canvas's matrix, and placed onto a canvas-sized buffer of its own
/// only when it is shown. Holds two decoded frames (the one shown and the next; a reverse clip one chunk), never a
/// decoder frame.
final class ItemReader {
    /// The item's index (an edit that moves the item renumbers its reader: `Engine.apply`).
    var item: Int
    let path: String
    private var source: LibAVFileSource
    private let placement: Placement
    private let letterbox: [UInt8]
    private let isStill: Bool

    /// The newest decoded frame at or before the last asked time, scaled, and its canvas-sized placement.
    private var shown: PixelBuffer
    private var shownTime: Fraction?
    /// The first frame's time: a time before it shows that frame, without seeking back.
    private var firstTime: Fraction?
    private var placed: PixelBuffer
    private var placedIsCurrent = false
    /// The frame after `shown`, decoded ahead to know when to switch.
    private var next: PixelBuffer
    private var nextTime: Fraction?
    private(set) var reachedEnd = false
    private(set) var framesDecoded = 0

    private let pool: FramePool

    init(item: Int, path: String, timeline: Timeline, matrix: YCbCrMatrix, pool: FramePool) throws(CompositionError) {
        let entry = timeline.items[item]
        let canvas = timeline.canvas
        self.item = item
        self.path = path
        self.pool = pool
        isStill = if case .still = entry.content { true } else { false }
        var chosen: Placement?
        do {
            source = try LibAVFileSource(path: path, format: .i420, matrix: matrix) { (geometry) throws(MediaIOError) in
                // Upright first, as ffmpeg's autorotate shows the file, then the item's own flip and rotation.
                guard let display = Timeline.Rotation(displayMatrix: geometry.displayMatrix) else {
                    let degrees = geometry.displayMatrix?.clockwiseDegrees.map { "\($0)°" } ?? "an unknown angle"
                    throw MediaIOError(code: .unsupported, reason: "\(path): its display matrix turns it \(degrees), "
                                       + "not a quarter turn: only 0, 90, 180 and 270 are shown upright; re-encode it "
                                       + "turned (ffmpeg -i in -c:v libx264 out.mp4 applies the matrix)")
                }
                let placement = Placement(sourceWidth: geometry.width, sourceHeight: geometry.height,
                                          canvasWidth: canvas.width, canvasHeight: canvas.height, fit: entry.fit,
                                          rotation: entry.rotation.composed(afterDisplayTurn: display, flip: entry.flip),
                                          flip: entry.flip)
                chosen = placement
                return (placement.scaledWidth, placement.scaledHeight)
            }
        } catch {
            throw .source("$.items[\(item)].source", "", error) // MediaIO's reason names the file
        }
        // Set by the closure, which the initialiser calls before it returns.
        placement = chosen!
        let (y, cb, cr) = (entry.letterbox ?? canvas.background).ycbcr(matrix)
        letterbox = [y, cb, cr]
        placed = pool.take(width: canvas.width, height: canvas.height)
        shown = pool.take(width: placement.scaledWidth, height: placement.scaledHeight)
        next = pool.take(width: placement.scaledWidth, height: placement.scaledHeight)
        if placement.isLetterboxed { PlaneKernels.fill(&placed, with: letterbox) }
    }

    /// The placed frame for `time` (nil: a still's only frame): the last frame at or before it (or before it, for a
    /// reverse time), else the first frame; at the end of the file, the last frame (held).
    func frame(at time: CompositionPlan.SourceTime?) throws(CompositionError) -> PixelBuffer {
        if shownTime == nil {
            guard try decode(into: &shown, time: &shownTime) else {
                throw CompositionError(code: .source, reason: "\(path) has no video frames", path: "$.items[\(item)].source")
            }
            firstTime = firstTime ?? shownTime
            placedIsCurrent = false
        }
        if let time, !time.inclusive, !isStill {
            return try reverseFrame(before: time.time)
        }
        if let time, !isStill {
            // Backwards (only after an edit moved the item under the playhead): from the keyframe before the time.
            if let shown = shownTime, let first = firstTime, time.time < shown, shown > first {
                try skip(to: time.time)
            }
            // At the end of the file the last frame holds: no seek back to it every frame.
            if !reachedEnd, let from = nextTime ?? shownTime, time.time - from > Self.seekAhead {
                try skip(to: time.time)
            }
            while true {
                if nextTime == nil, !reachedEnd { _ = try decode(into: &next, time: &nextTime) }
                guard let candidate = nextTime, time.inclusive ? candidate <= time.time : candidate < time.time else {
                    break
                }
                swap(&shown, &next)
                shownTime = candidate
                nextTime = nil
                placedIsCurrent = false
            }
        }
        if !placedIsCurrent {
            PlaneKernels.place(shown, on: &placed, placement)
            placedIsCurrent = true
        }
        return placed
    }

    /// A frame more than this far ahead of the decoder is reached by seeking to the keyframe before it instead of
    /// decoding everything in between (a clip's `in`, a fast clip, a seek): MLT's avformat producer seeks from 12
    /// frames ahead.
    static let seekAhead = Fraction(1)

    /// Seeks to the keyframe at or before `target`, leaving its first frame in `next`; further back when the
    /// container's index gave a keyframe shown after `target`.
    private func skip(to target: Fraction) throws(CompositionError) {
        try KeyframeSeek.seek(to: target, seek: { (start: Fraction) throws(CompositionError) in
            do throws(MediaIOError) {
                try source.seekToKeyframe(atOrBefore: start.mediaTime())
            } catch {
                throw .source("$.items[\(item)].source", "\(path)", error)
            }
            reachedEnd = false
            nextTime = nil
        }, decodeFirst: { () throws(CompositionError) -> Fraction? in
            try decode(into: &next, time: &nextTime) ? nextTime : nil
        })
    }

    // MARK: Reverse: backward in chunks

    /// A reverse clip is decoded forward one chunk at a time, from the keyframe at or before the chunk's start, and
    /// only the chunk's frames are kept: memory is bounded by one chunk (≤ 1 s × the clip's rate × the placed size;
    /// 30 scaled 720p frames ≈ 41 MB), never the whole clip as ffmpeg's `reverse` holds it (471 MB for 10 s of
    /// 720p, measured). A GOP longer than the chunk costs decode time (frames before the chunk are decoded and
    /// dropped: ≈ 4.7× forward for a 10 s single-GOP clip, measured), not memory.
    static let reverseChunk = Fraction(1)

    /// Frames of the loaded chunk, ascending, all those of the source in [chunkStart, chunkEnd).
    private var chunk: [(time: Fraction, buffer: PixelBuffer)] = []
    private var chunkStart = Fraction.zero
    private var chunkEnd = Fraction.zero
    private var spare: [PixelBuffer] = []
    private var placedTime: Fraction?
    /// Most frames one chunk has held.
    private(set) var largestChunk = 0

    private func reverseFrame(before time: Fraction) throws(CompositionError) -> PixelBuffer {
        let first = chunk.first?.time
        if first == nil || time > chunkEnd || time <= first! && chunkStart > .zero {
            try loadChunk(endingAt: time)
        }
        guard let index = chunk.lastIndex(where: { $0.time < time }) ?? (chunk.isEmpty ? nil : 0) else {
            return try frame(at: CompositionPlan.SourceTime(time: time, inclusive: true)) // nothing before: hold
        }
        if placedTime != chunk[index].time || !placedIsCurrent {
            PlaneKernels.place(chunk[index].buffer, on: &placed, placement)
            placedTime = chunk[index].time
            placedIsCurrent = true
        }
        return placed
    }

    private func loadChunk(endingAt end: Fraction) throws(CompositionError) {
        var start = max(.zero, end - Self.reverseChunk)
        for attempt in 0..<4 {
            spare += chunk.map(\.buffer)
            chunk.removeAll(keepingCapacity: true)
            do {
                try source.seekToKeyframe(atOrBefore: start.mediaTime())
            } catch {
                throw .source("$.items[\(item)].source", "\(path)", error)
            }
            var firstDecoded: Fraction?
            while true {
                var buffer = spare.popLast() ?? pool.take(width: placement.scaledWidth, height: placement.scaledHeight)
                var time: Fraction?
                guard try decode(into: &buffer, time: &time), let time else {
                    spare.append(buffer)
                    break
                }
                firstDecoded = firstDecoded ?? time
                guard time < end else {
                    spare.append(buffer)
                    break
                }
                if time >= start { chunk.append((time, buffer)) } else { spare.append(buffer) }
            }
            // The container indexes by decode time and gave a keyframe shown after `start`: seek further back.
            if let firstDecoded, firstDecoded > start, start > .zero, attempt < 3 {
                start = max(.zero, start - Self.reverseChunk)
                continue
            }
            break
        }
        reachedEnd = false
        chunkStart = start
        chunkEnd = end
        largestChunk = max(largestChunk, chunk.count)
        placedIsCurrent = false
    }

    /// Gives every buffer back to the pool; the reader is not used after this.
    func release() {
        for buffer in [shown, next, placed] + chunk.map(\.buffer) + spare { pool.give(buffer) }
        chunk.removeAll()
        spare.removeAll()
    }

    /// Decodes the next frame; false at the end of the file.
    private func decode(into buffer: inout PixelBuffer, time: inout Fraction?) throws(CompositionError) -> Bool {
        let pts: MediaTime?
        do {
            pts = try source.nextFrame(into: &buffer)
        } catch {
            throw .source("$.items[\(item)].source", "\(path)", error)
        }
        guard let pts else {
            reachedEnd = true
            return false
        }
        framesDecoded += 1
        time = Fraction(Int128(pts.value), Int128(pts.timescale))
        return true
    }
}
