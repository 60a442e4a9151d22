import Bitstream
import CongestionControl
import MediaCore
import RTP

/// One media flow's endpoints in the loop: the codec (synthetic or a real encoder) feeding the pure `RTPSendSession`
/// (its pacer runs in virtual time), the `RTPReceiveSession` at the far end, the policy deciding the rate, and the
/// feedback — on the wire between the sessions, or from a `FeedbackSource` — that tells the policy what became of its
/// packets. A class because the send session is `~Copyable` and the simulator
/// reaches it from many events.
final class MediaFlow {
    let index: Int
    let spec: MediaFlowSpec
    var sender: RTPSendSession
    var receiver: RTPReceiveSession
    var codec: any SimulatedCodec
    var policy: any BitrateControlPolicy
    /// The out-of-band source (ground truth); unused when the feedback travels on the wire.
    var feedback: any FeedbackSource
    let feedbackPath: FeedbackPath
    let bounds: BitrateBounds
    var random: SimulationRandom
    var allocation = BitrateAllocation(bitsPerSecond: 0)
    /// Out of band (ground truth): the next transport-wide number (on the wire the session numbers its packets).
    var nextTransportSequence: Int64 = 0
    var frameIndex: Int64 = 0
    /// Wake-ups already in the event queue (so that a session is not woken once per packet).
    var senderWake: Int64?
    var receiverWake: Int64?
    /// RTP timestamp → index of the frame's `FrameFate`.
    var frames: [UInt32: Int] = [:]
    /// (time, encoder target) at every change.
    var targets: [(time: Int64, bitsPerSecond: Int)] = []
    var probeClusters: [(time: Int64, id: Int, bitsPerSecond: UInt64)] = []
    /// On the wire: what `RTPSendSession.pollSentPackets` reported of the last transmit (its capacity is kept).
    var sentPackets: [SentPacket] = []

    init(index: Int, spec: MediaFlowSpec, codec: any SimulatedCodec, policy: any BitrateControlPolicy,
         feedback: any FeedbackSource, feedbackPath: FeedbackPath, feedbackInterval: Int64, seed: UInt64) throws(SimulationError) {
        self.index = index
        self.spec = spec
        self.policy = policy
        self.feedback = feedback
        self.feedbackPath = feedbackPath
        random = SimulationRandom(seed: seed, stream: 0x1000 + UInt64(index))
        do {
            bounds = try BitrateBounds(ceiling: spec.maximumBitrate, floor: spec.minimumBitrate)
        } catch {
            throw .make(.invalidArgument, error.reason)
        }
        self.codec = codec
        let ssrc = 0x5100_0000 | UInt32(index)
        var configuration = RTPSendSession.Configuration(
            ssrc: ssrc, cname: "sim-sender-\(index)", payloader: .init(maxPayloadSize: 1200),
            pacing: .paced(targetBitrate: UInt64(spec.startBitrate)), initialSequenceNumber: UInt16(truncatingIfNeeded: 1000 * index),
            timestampOffset: UInt32(truncatingIfNeeded: 90_000 * index))
        feedbackPath.configure(&configuration)
        // The policy's pacer burst, as `stream --cc` gives the live session it.
        if let burst = policy.pacingBurst { configuration.pacingBurst = burst }
        do {
            sender = try RTPSendSession(
                configuration: configuration, sequenceParameterSet: codec.parameterSets?.sequence,
                pictureParameterSet: codec.parameterSets?.picture, random: SimulationRandom(seed: seed, stream: 0x2000 + UInt64(index)))
        } catch {
            throw .make(.session, "the simulated sender: \(error)")
        }
        var receiving = RTPReceiveSession.Configuration(ssrc: 0x5200_0000 | UInt32(index), cname: "sim-receiver-\(index)")
        feedbackPath.configure(&receiving, interval: feedbackInterval)
        receiver = RTPReceiveSession(configuration: receiving)
    }

    /// True while the flow captures frames at `time`.
    func isActive(at time: Int64) -> Bool { spec.spans.contains { $0.contains(time) } }
}
