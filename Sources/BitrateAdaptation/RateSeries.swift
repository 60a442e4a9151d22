/// Bitrate over time, for plots and tables: what a viewer of the stream would see.
public enum RateSeries {
    public struct Point: Sendable, Hashable {
        /// Seconds: the window's end (sliding) or start (bins).
        public var time: Double
        /// Bits per second; nil when the window is not full yet.
        public var bitsPerSecond: Double?
    }

    /// The rate of the window of `window` seconds ending at each frame (t − window < tᵢ ≤ t); nil until the window
    /// is full (t ≥ t₀ + window − frameInterval: each frame stands for one frame interval of time).
    public static func sliding(_ frames: [FrameRecord], window: Double, frameInterval: Double) -> [Point] {
        let timeline = FrameTimeline(frames)
        let firstTime = frames.first?.time ?? 0
        return frames.map { frame in
            let full = frame.time >= firstTime + window - frameInterval - FrameTimeline.slack
            let bytes = timeline.bytes(after: frame.time - window, through: frame.time)
            return Point(time: frame.time, bitsPerSecond: full ? Double(bytes) * 8 / window : nil)
        }
    }

    /// Back-to-back bins [k·bin, (k+1)·bin) from 0 to `duration`, each with its rate.
    public static func binned(_ frames: [FrameRecord], bin: Double, duration: Double) -> [Point] {
        let timeline = FrameTimeline(frames)
        let count = Int((duration / bin - FrameTimeline.slack).rounded(.up))
        return (0..<max(0, count)).map { index in
            let start = Double(index) * bin
            let bytes = timeline.bytes(from: start, before: start + bin)
            return Point(time: start, bitsPerSecond: Double(bytes) * 8 / bin)
        }
    }
}
