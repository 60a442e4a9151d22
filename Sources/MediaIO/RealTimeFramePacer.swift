#if canImport(Glibc)
import Glibc
#endif

/// Plays frames out in real time on the monotonic clock: the driver of `RealTimeSchedule` that sleeps. What
/// `rtenc stream` does with a file or the test pattern, offered to an embedder's loop:
///
///     var pacer = RealTimeFramePacer(frameRate: source.frameRate)
///     while let time = try source.nextFrame(into: &buffer) {
///         guard pacer.waitForTurn(of: time) else { continue }   // false: late, skipped (pacer.lateFrames counts)
///         try session.encode(buffer, presentationTime: time)
///     }
///
/// `shouldStop` is polled at least every 50 ms while waiting, so Ctrl-C or a closed peer ends a long wait promptly.
public struct RealTimeFramePacer: Sendable {
    public var schedule: RealTimeSchedule
    public let clock: any MediaClock
    /// Frames `waitForTurn` refused as more than `schedule.maxLateness` behind.
    public private(set) var lateFrames = 0

    public init(frameRate: Rational? = nil, maxLateness: Duration? = nil, clock: any MediaClock = MonotonicMediaClock()) {
        schedule = RealTimeSchedule(maxLateness: maxLateness, frameRate: frameRate)
        self.clock = clock
    }

    /// Waits until the frame with `presentationTime` is due. Returns true when it should be encoded now, false when
    /// it is late (skip it) or `shouldStop` said so while waiting.
    public mutating func waitForTurn(of presentationTime: MediaTime, shouldStop: () -> Bool = { false }) -> Bool {
        switch schedule.decide(presentationTime, now: clock.now) {
        case .due:
            return true
        case .late:
            lateFrames += 1
            return false
        case .wait(let due):
            while !shouldStop() {
                let remaining = due - clock.now
                if remaining <= .zero { return true }
                Self.sleep(min(remaining, .milliseconds(50)))
            }
            return false
        }
    }

    /// Starts the timeline again with `presentationTime` due now (after a pause, a seek or a start delay).
    public mutating func restart(presentationTime: MediaTime) {
        schedule.restart(presentationTime: presentationTime, at: clock.now)
    }

    private static func sleep(_ duration: Duration) {
        let nanoseconds = max(0, duration.nanoseconds)
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }
}
