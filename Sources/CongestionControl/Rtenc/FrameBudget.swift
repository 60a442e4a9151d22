import MediaCore

/// The per-frame byte budget: what rtenc's controller has over any congestion controller that only sets a rate. The
/// encoder's hard cap (no 1 s window above 1.5 × the target) and its per-frame sizes make each frame's size something
/// the controller can *decide*, so a queue above the delay target is removed by leaving bytes out of the next frames
/// — skipping whole frames when the excess is more than a frame — instead of by a deep cut of the rate that then
/// has to be won back.
///
/// Design (Salsify, NSDI 2018 §4: the transport tells the codec how many bytes the next frame may take so that the
/// frame never lands on a queue; design note §5c-3: budget = rate × frame interval − bytes queued beyond the target
/// delay): the excess is a *debt* of bytes. Each report sets it to the bytes queued beyond the target (standing
/// queuing delay above `target` × the delivery rate) minus what frames already left out since the newest packet the
/// report covers was sent — those savings are on their way and not yet visible in the report, and counting them
/// twice would skip frames for nothing. Each frame then takes `nominal − debt` bytes (nominal = target rate × frame
/// interval) and repays the difference; when the debt exceeds a nominal frame the frame is skipped.
public struct FrameBudget: Sendable {
    /// Savings are remembered this long (more than any report's delay).
    public static let savingsMemory: Duration = .seconds(2)
    /// The frame interval assumed before two frames were seen (30 fps).
    public static let defaultFrameInterval: Duration = .nanoseconds(33_333_333)

    /// Bytes queued beyond the target that frames still have to leave out.
    public private(set) var debt = 0.0
    /// Bytes frames left out, by the time the frame was encoded.
    private var savings: [(time: Instant, bytes: Double)] = []
    /// Bytes frames took beyond what the rate had room for (`owe`), by the time the frame was encoded.
    private var owed: [(time: Instant, bytes: Double)] = []
    private var lastFrameTime: Instant?
    /// The frame interval, smoothed (frames may come at any rate).
    public private(set) var frameInterval = FrameBudget.defaultFrameInterval

    public init() {}

    /// A report showed `excessBytes` queued beyond the target; every packet sent up to `reportedUpTo` is in it.
    public mutating func setExcess(_ excessBytes: Double, reportedUpTo: Instant) {
        let pending = savings.lazy.filter { $0.time > reportedUpTo }.reduce(0.0) { $0 + $1.bytes }
        // Bytes owed for frames sent after the report's newest packet are not in its queue yet: still owed.
        let owedSince = owed.lazy.filter { $0.time > reportedUpTo }.reduce(0.0) { $0 + $1.bytes }
        debt = max(0, excessBytes + owedSince - pending)
    }

    /// The sender knows `bytes` more are on their way to the queue than the rate has room for (a frame over its
    /// nominal size in loss recovery, encoded at `now`): the next frames leave them out before any report can show
    /// them, and a report that does not yet cover the frame keeps them owed.
    public mutating func owe(_ bytes: Double, at now: Instant) {
        guard bytes > 0 else { return }
        debt += bytes
        owed.append((now, bytes))
        if let first = owed.first, first.time < now - Self.savingsMemory { owed.removeAll { $0.time < now - Self.savingsMemory } }
    }

    /// Forgets the debt (the controller left delay mode: the queue is not its own).
    public mutating func clear() {
        debt = 0
        savings.removeAll()
        owed.removeAll()
    }

    /// The nominal size of a frame at `bitsPerSecond`, bytes.
    public func nominalFrameBytes(at bitsPerSecond: Double) -> Double {
        bitsPerSecond / 8 * frameInterval.gccSeconds
    }

    /// The budget of the next frame at `bitsPerSecond`: nil without debt (the encoder's rate control alone
    /// decides, so its own frame-to-frame variation is not clipped), else the nominal frame less the debt, ≥ 0.
    public func budget(at bitsPerSecond: Double) -> Int? {
        guard debt > 0 else { return nil }
        return Int(max(0, nominalFrameBytes(at: bitsPerSecond) - debt))
    }

    /// A frame of `bytes` (0: skipped) was encoded at `now` while the target was `bitsPerSecond`.
    public mutating func frameEncoded(bytes: Int, at now: Instant, bitsPerSecond: Double) {
        if let last = lastFrameTime, now > last {
            let interval = now - last
            // Smoothed over ~8 frames; an interval over 1 s (a pause) is not a frame rate.
            if interval < .seconds(1) { frameInterval = (frameInterval * 7 + interval) / 8 }
        }
        lastFrameTime = now
        guard debt > 0 else { return }
        let saved = min(debt, max(0, nominalFrameBytes(at: bitsPerSecond) - Double(bytes)))
        debt -= saved
        if debt < 1 { debt = 0 }  // a fraction of a byte left by rounding is no debt
        if saved > 0 { savings.append((now, saved)) }
        if let first = savings.first, first.time < now - Self.savingsMemory {
            savings.removeAll { $0.time < now - Self.savingsMemory }
        }
    }
}
