import CongestionControl
import EncoderSession
import MediaCore
import RTPOut
import Synchronization

/// `BitrateController` live: hooked to an `RTPSender`'s feedback callbacks, applied to a `CompressionSession` and
/// that sender before each frame — encoder target (with its data-rate cap) and pacing rate in one call, so the two
/// cannot drift apart and no caller has to write the bridge.
///
/// ```swift
/// let rate = try LiveBitrateController(bounds: BitrateBounds(ceiling: 1_000_000))
/// let sender = try RTPSender(configuration: …, onKeyframeRequest: rate.keyframeRequestHandler,
///                            onBitrateLimit: rate.bitrateLimitHandler)
/// …
/// let decision = try rate.apply(to: session, sender: sender)   // before each encode
/// try session.encode(buffer, presentationTime: time, options: .init(forceKeyFrame: decision?.forceKeyframe ?? false))
/// ```
///
/// Threads: the handlers run on the sender's I/O thread and only record (a short lock, no call into the encoder or
/// the sender); `apply` runs on the thread that encodes, polls the controller and makes the two calls outside that
/// lock. Applications are serialised, so decisions reach the encoder and the pacer in the order they were made.
public final class LiveBitrateController: Sendable {
    /// Everything the handlers and `apply` share, under one short lock.
    private struct State {
        var controller: BitrateController
        /// When the policy was last given its process interval.
        var lastProcess: Instant
        /// Probe clusters handed to the pacer, and those it could not take.
        var probeClustersStarted = 0
        var probeClustersRefused = 0
        /// Sent packets heard since the policy was last handed any (`packetsSentHandler`), on the controller's clock;
        /// capacity kept, so the sent-packet path costs an append per packet.
        var pendingSent: [SentPacket] = []

        /// Hands the sent packets gathered to the policy: before a feedback report (which may cover them) and
        /// before each decision (rtenc's pacer backlog counts them).
        mutating func flushSent(at now: Instant) {
            guard !pendingSent.isEmpty else { return }
            controller.handle(.packetsSent(pendingSent), at: now)
            pendingSent.removeAll(keepingCapacity: true)  // unique again once the event is gone: no reallocation
        }
    }

    /// Sent packets held for the policy at most (then handed over at once): a loop that stopped applying must not
    /// make them pile up.
    static let maxPendingSent = 4096

    private let state: Mutex<State>
    /// Held across one decision's two calls (which take only the session's and the sender's own short locks), never
    /// by the handlers: the I/O thread never waits for an encoder call.
    private let applying = Mutex<Void>(())
    private let clock: any MediaClock
    /// The sender's clock, which its send times and reports are on (the wall clock `RTPSender` reads).
    private let transportNow: @Sendable () -> Instant
    private let processInterval: Duration?
    /// The first allocation's probe clusters (goog_cc's start probes), sent at the first `apply`.
    private let initialProbes: Mutex<[ProbeClusterConfig]>

    /// - Parameters:
    ///   - bounds: the ceiling (the rate the encoder and sender were opened with) and the floor.
    ///   - policy: how limits become the rate; `PeerLimitPolicy` keeps rtenc's REMB/TMMBR rule.
    ///   - clock: what `now` is for the policy (a `ManualClock` in tests).
    ///   - transportNow: the sender's clock — `RTPSender` stamps send times and reports with the wall clock — read
    ///     beside `clock` whenever packets or a report arrive, so their times reach the policy on `clock` (a report's
    ///     "now" and a packet's send time must be comparable with the `now` of `allocation(within:at:)`: rtenc's frame
    ///     budget and silence timer compare them). Tests give the same manual clock, or one offset from it.
    ///   - processInterval: a policy with timers of its own (`GoogCCPolicy`: 25 ms, libwebrtc's process interval) is
    ///     asked again at an `apply` once this has passed, even when no feedback came; nil: only inputs ask it.
    public init(bounds: BitrateBounds, policy: any BitrateControlPolicy = PeerLimitPolicy(),
                clock: any MediaClock = MonotonicMediaClock(), transportNow: (@Sendable () -> Instant)? = nil,
                processInterval: Duration? = nil) {
        self.clock = clock
        self.transportNow = transportNow ?? { Instant(wallClockNow()) }
        self.processInterval = processInterval
        let now = clock.now
        let controller = BitrateController(bounds: bounds, policy: policy, at: now)
        initialProbes = Mutex(controller.current.probeClusters)
        var state = State(controller: controller, lastProcess: now)
        state.pendingSent.reserveCapacity(Self.maxPendingSent)
        self.state = Mutex(state)
    }

    /// For `RTPSender(onKeyframeRequest:)`: records a PLI/FIR.
    public var keyframeRequestHandler: @Sendable () -> Void { { [self] in handle(.keyframeRequest) } }

    /// For `RTPSender(onBitrateLimit:)`: records a REMB/TMMBR limit.
    public var bitrateLimitHandler: @Sendable (UInt64) -> Void { { [self] in handle(.peerLimit(bitsPerSecond: $0)) } }

    /// For `RTPSender(onTransportFeedback:)`: hands a feedback report to the policy (`observe(feedback:)`).
    public var transportFeedbackHandler: @Sendable (TransportPacketsFeedback) -> Void {
        { [self] report in
            let (now, shift) = clocks()
            let moved = report.shifted(by: shift)
            state.withLock {
                $0.flushSent(at: now)  // the policy hears of each packet sent before a report about it
                $0.controller.handle(.transportFeedback(moved), at: now)
            }
        }
    }

    /// For `RTPSender(onPacketsSent:)`, the sent-packet path: the packets are kept (an append each, send times moved
    /// onto the controller's clock) and handed to the policy's `observe(sent:)` before the next report or decision.
    public var packetsSentHandler: @Sendable ([SentPacket]) -> Void {
        { [self] packets in
            let (now, shift) = clocks()
            state.withLock { state in
                for packet in packets { state.pendingSent.append(packet.shifted(by: shift)) }
                if state.pendingSent.count >= Self.maxPendingSent { state.flushSent(at: now) }
            }
        }
    }

    /// The controller's time, and what to add to a time of the sender's clock to put it on the controller's.
    private func clocks() -> (now: Instant, shift: Duration) {
        let now = clock.now
        return (now, now - transportNow())
    }

    /// What the next frame may take, bytes, as the policy last answered (`BitrateAllocation.frameByteLimit`): nil for
    /// no limit, 0 to skip the frame. Read after `apply`, before encoding; report the frame (or its skip, as 0 bytes)
    /// with `.encodedFrame`, which has the policy asked again for the frame after.
    public var frameByteLimit: Int? { state.withLock { $0.controller.current.frameByteLimit } }

    /// Records an event now (from any thread); it takes effect at the next `apply`.
    public func handle(_ event: BitrateControlEvent) {
        let now = clock.now
        state.withLock { $0.controller.handle(event, at: now) }
    }

    /// The allocation in force (the last one decided).
    public var allocation: BitrateAllocation { state.withLock { $0.controller.current } }

    public var bounds: BitrateBounds { state.withLock { $0.controller.bounds } }

    /// The policy's name (`gcc`, `peer-limit`).
    public var policyName: String { state.withLock { $0.controller.policyName } }

    /// The policy's own estimate of the path, bits/s (nil when it keeps none: `PeerLimitPolicy`).
    public var estimate: Int? { state.withLock { $0.controller.estimate } }

    /// Probe clusters handed to the sender so far, and those it refused (too many waiting, no RTX stream).
    public var probeClusters: (started: Int, refused: Int) {
        state.withLock { ($0.probeClustersStarted, $0.probeClustersRefused) }
    }

    /// Before each frame: takes the decision, if any, and applies its allocation to the encoder
    /// (`setAverageBitRate`, which moves the data-rate cap with it; effective from the next frame) and to the
    /// sender's pacer, together, and hands its probe clusters to the sender (`RTPSender.startProbe`). Returns it, so
    /// the caller can force the keyframe the peer asked for (and log the change); nil when nothing came since the
    /// last frame.
    /// - Throws: what `setAverageBitRate` throws (an invalidated session); the pacer is then left as it was.
    @discardableResult
    public func apply(to session: CompressionSession, sender: RTPSender) throws(EncoderSessionError) -> BitrateDecision? {
        try apply(toEncoder: session, pacer: sender)
    }

    /// The same for a sender without an encoder (`rtenc send`: the stream is what it is): only the pacing rate and
    /// the probes follow the decisions.
    @discardableResult
    public func apply(toSender sender: RTPSender) -> BitrateDecision? {
        // Only the encoder's call throws, and there is none.
        (try? decide(encoder: nil, pacer: sender)) ?? nil
    }

    /// `apply(to:sender:)` over the two seams, so tests can watch both calls.
    package func apply(
        toEncoder encoder: some EncoderBitRateSetting, pacer: some PacingRateSetting
    ) throws(EncoderSessionError) -> BitrateDecision? {
        try decide(encoder: encoder, pacer: pacer)
    }

    private func decide(
        encoder: (any EncoderBitRateSetting)?, pacer: some PacingRateSetting
    ) throws(EncoderSessionError) -> BitrateDecision? {
        try applying.withLock { (_: inout Void) throws(EncoderSessionError) -> BitrateDecision? in
            let now = clock.now
            let initial = initialProbes.withLock { probes in
                defer { probes.removeAll() }
                return probes
            }
            let processInterval = self.processInterval
            let decision = state.withLock { state -> BitrateDecision? in
                state.flushSent(at: now)
                if let processInterval, now - state.lastProcess >= processInterval {
                    state.lastProcess = now
                    state.controller.handle(.processInterval, at: now)
                }
                return state.controller.poll(at: now)
            }
            // A decision that only brings probe clusters leaves the encoder and the pacer as they are.
            if let decision, let allocation = decision.allocation, decision.changesRate || allocation.probeClusters.isEmpty {
                try encoder?.setAverageBitRate(allocation.encoderBitRate)
                pacer.setTargetBitrate(allocation.pacingBitRate)
            }
            let probes = initial + (decision?.allocation?.probeClusters ?? [])
            if !probes.isEmpty {
                let taken = probes.count { pacer.startProbe($0) }
                state.withLock {
                    $0.probeClustersStarted += taken
                    $0.probeClustersRefused += probes.count - taken
                }
            }
            return decision
        }
    }
}

/// What `LiveBitrateController.apply` sets on the encoder: `CompressionSession`, or a test's fake.
package protocol EncoderBitRateSetting: Sendable {
    func setAverageBitRate(_ bitsPerSecond: Int) throws(EncoderSessionError)
}

/// What `LiveBitrateController.apply` sets on the sender: `RTPSender`'s pacer and prober, or a test's fake.
package protocol PacingRateSetting: Sendable {
    func setTargetBitrate(_ bitsPerSecond: UInt64)
    /// Sends a probe cluster as padding; false when it was not taken.
    func startProbe(_ cluster: ProbeClusterConfig) -> Bool
}

extension CompressionSession: EncoderBitRateSetting {}
extension RTPSender: PacingRateSetting {
    /// A controller's probe cluster as the sender's (`RTPSender.startProbe`); false when refused (no RTX stream,
    /// too many clusters waiting, the sender closed).
    package func startProbe(_ cluster: ProbeClusterConfig) -> Bool {
        do { return try startProbe(cluster.packets) } catch { return false }
    }
}
