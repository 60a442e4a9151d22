import CLibAV
import MediaCore

/// Where a file's keyframes are, read from its video packets without decoding (the demuxer's keyframe flags, so
/// any container libavformat opens): what a reader needs to know before it promises to play a clip backwards in real
/// time, since each step back decodes from the keyframe before it.
///
/// Times are presentation times in seconds after the first frame, as `LibAVFileSource` counts them (the smallest
/// presentation time read is 0).
public struct KeyframeIndex: Sendable, Hashable {
    /// Presentation times of the keyframes read, ascending.
    public var keyframes: [MediaTime] { keyTicks.map(time) }
    /// Packets of the video stream read, keyframes included.
    public let frames: Int
    /// The presentation time after the last frame read (its time plus its duration, or plus the mean frame
    /// interval when the packet carries none).
    public var end: MediaTime { time(endTicks) }

    /// In ticks of the stream's time base `timeBase`, from the first frame.
    private let keyTicks: [Int64]
    private let endTicks: Int64
    private let timeBase: Rational

    /// Scans the packets of `path`'s best video stream, up to the first keyframe after `until` (the whole file when
    /// nil): a reader of the clip's part [in, in + duration] passes `in + duration`.
    public init(path: String, until limit: MediaTime? = nil) throws(MediaIOError) {
        let input = try FormatInput(path: path)
        let stream = try input.bestVideoStreamInfo()
        timeBase = stream.timeBase
        let packet = try OwnedPacket()
        var keys: [Int64] = [], first: Int64?, last: Int64?, lastDuration: Int64 = 0, count = 0
        while try input.readPacket(into: packet) {
            guard packet.streamIndex == stream.index, let pts = packet.pts ?? packet.dts else { continue }
            if packet.isKeyframe {
                // One keyframe past the limit closes the last GOP the caller uses.
                if let limit, let base = first, keys.contains(where: { Self.time($0 - base, stream.timeBase) > limit }) {
                    break
                }
                keys.append(pts)
            }
            count += 1
            first = min(first ?? pts, pts)
            if pts >= last ?? pts {
                last = pts
                lastDuration = packet.pointer.pointee.duration
            }
        }
        guard let first, let last else {
            throw .make(.noVideoStream, "\(path): no video packets to find keyframes in")
        }
        frames = count
        keyTicks = keys.map { $0 - first }.sorted()
        let step = lastDuration > 0 ? lastDuration : (count > 1 ? (last - first) / Int64(count - 1) : 1)
        endTicks = last - first + max(step, 1)
    }

    /// The longest stretch of presentation time from a keyframe to the next (or to the end) among the stretches
    /// that overlap [start, stop): the most a reader decodes to reach one frame there. Frames before the first
    /// keyframe count as a stretch of their own.
    public func longestGOP(overlapping start: MediaTime, _ stop: MediaTime) -> MediaTime {
        let starts = [0] + keyTicks.filter { $0 > 0 }
        var longest: Int64 = 0
        for (index, gopStart) in starts.enumerated() {
            let gopEnd = index + 1 < starts.count ? starts[index + 1] : endTicks
            guard time(gopEnd) > start, time(gopStart) < stop else { continue }
            longest = max(longest, gopEnd - gopStart)
        }
        return time(longest)
    }

    private func time(_ ticks: Int64) -> MediaTime { Self.time(ticks, timeBase) }

    private static func time(_ ticks: Int64, _ timeBase: Rational) -> MediaTime {
        MediaTime(value: ticks * Int64(timeBase.numerator), timescale: Int64(timeBase.denominator))
    }
}
