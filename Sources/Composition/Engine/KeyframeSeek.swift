import Timeline

/// Seeking a reader to the keyframe at or before a time, shared by the sequence's and the overlays' readers: the
/// container indexes by decode time and can give a keyframe shown after the target, so the seek goes back a chunk at
/// a time (twice), then to the start.
enum KeyframeSeek {
    /// - Parameters:
    ///   - seek: moves the demuxer to the keyframe at or before a time.
    ///   - decodeFirst: decodes the first frame after the seek and returns its time (nil at the end of the file).
    static func seek(to target: Fraction, seek: (Fraction) throws(CompositionError) -> Void,
                     decodeFirst: () throws(CompositionError) -> Fraction?) throws(CompositionError) {
        var start = target
        for attempt in 0..<4 {
            try seek(start)
            guard let first = try decodeFirst() else { return }
            if first <= target || start == .zero { return }
            start = attempt < 2 ? max(.zero, start - ItemReader.reverseChunk) : .zero
        }
    }
}
