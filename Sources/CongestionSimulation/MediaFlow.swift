import Bitstream
import CongestionControl
import MediaCore
import RTP

/// One media flow's endpoints in the loop: the synthetic codec feeding the pure `RTPSendSession` (its pacer runs in
/// virtual time), the `RTPReceiveSession` at the far end, the policy deciding the rate, and the feedback source that
/// tells the policy what became of its packets. A class because the send session is `~Copyable` and the simulator
/// reaches it from many events.
final class MediaFlow {
    /// SPS and PPS of x264 High@3.1 1280×720: the shape of a keyframe's parameter sets (not parsed on this path).
    static let sequenceParameterSet: [UInt8] = [0x67, 0x64, 0x00, 0x1F, 0xAC, 0xD9, 0x40, 0x50, 0x05, 0xBB, 0x01, 0x10, 0x00,
                                                0x00, 0x03, 0x00, 0x10, 0x00, 0x00, 0x03, 0x03, 0xC0, 0xF1, 0x83, 0x19, 0x60]
    static let pictureParameterSet: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]

    let index: Int
    let spec: MediaFlowSpec
    var sender: RTPSendSession
    var receiver: RTPReceiveSession
    var codec: SyntheticCodec
    var policy: any BitrateControlPolicy
    var feedback: any FeedbackSource
    let bounds: BitrateBounds
    var random: SimulationRandom
    var allocation = BitrateAllocation(bitsPerSecond: 0)
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

    init(index: Int, spec: MediaFlowSpec, codec: SyntheticCodec.Configuration, policy: any BitrateControlPolicy,
         feedback: any FeedbackSource, seed: UInt64) throws(SimulationError) {
        self.index = index
        self.spec = spec
        self.policy = policy
        self.feedback = feedback
        random = SimulationRandom(seed: seed, stream: 0x1000 + UInt64(index))
        do {
            bounds = try BitrateBounds(ceiling: spec.maximumBitrate, floor: spec.minimumBitrate)
        } catch {
            throw .make(.invalidArgument, error.reason)
        }
        self.codec = try SyntheticCodec(configuration: codec, target: Double(spec.startBitrate))
        let ssrc = 0x5100_0000 | UInt32(index)
        do {
            sender = try RTPSendSession(
                configuration: .init(ssrc: ssrc, cname: "sim-sender-\(index)", payloader: .init(maxPayloadSize: 1200),
                                     pacing: .paced(targetBitrate: UInt64(spec.startBitrate)), initialSequenceNumber: UInt16(truncatingIfNeeded: 1000 * index),
                                     timestampOffset: UInt32(truncatingIfNeeded: 90_000 * index)),
                sequenceParameterSet: Self.sequenceParameterSet, pictureParameterSet: Self.pictureParameterSet,
                random: SimulationRandom(seed: seed, stream: 0x2000 + UInt64(index)))
        } catch {
            throw .make(.session, "the simulated sender: \(error)")
        }
        receiver = RTPReceiveSession(configuration: .init(ssrc: 0x5200_0000 | UInt32(index), cname: "sim-receiver-\(index)"))
    }

    /// True while the flow captures frames at `time`.
    func isActive(at time: Int64) -> Bool { spec.spans.contains { $0.contains(time) } }

    /// An access unit of `frame.bytes` bytes: SPS and PPS before a keyframe, one slice of filler after the header.
    /// The filler is never 0, so no start code appears inside.
    func accessUnit(_ frame: SyntheticCodec.Frame, index: Int64, framesPerSecond: Int) -> CodedAccessUnit {
        var nalUnits: [[UInt8]] = frame.isKeyframe ? [Self.sequenceParameterSet, Self.pictureParameterSet] : []
        let sliceBytes = max(2, frame.bytes - (frame.isKeyframe ? 32 : 0))
        var slice = [UInt8](repeating: 0xA5, count: sliceBytes)
        slice[0] = frame.isKeyframe ? 0x65 : 0x41  // IDR slice (NRI 3) / non-IDR slice (NRI 2)
        nalUnits.append(slice)
        return CodedAccessUnit(joiningAnnexB: nalUnits, codec: .h264, isKeyframe: frame.isKeyframe,
                               presentationTime: MediaTime(value: index, timescale: Int64(framesPerSecond)))
    }
}
