import Bitstream
/// When a receiver must ask the sender for a new picture (PLI, RFC 4585 §6.3.1), above all at the start of a stream,
/// where it cannot tell that a packet before the first one it saw was lost.
///
/// A picture can be decoded only from an IDR whose SPS and PPS the decoder has — in the access unit, earlier in the
/// stream, or from the SDP's sprop-parameter-sets (RFC 6184 §8.1). For HEVC: from an IRAP picture (IDR, CRA, BLA)
/// with its VPS, SPS and PPS (sprop-vps/sps/pps, RFC 7798 §7.1); "IDR" below means that. Until such an IDR arrives, and again after an
/// access unit was lost or the decoder rejected one, every access unit that is not such an IDR asks again; the caller
/// throttles (`RTCPReceiverSession.minPictureLossInterval`), so a lost PLI is repeated, a PLI storm is not.
///
/// Pure: fed what happened, it says whether a PLI is wanted and why.
public struct PictureRecovery: Sendable, Equatable {
    /// Why a PLI was wanted; also the key of the receiver's per-reason PLI counts.
    public enum Reason: String, Sendable, CaseIterable, Hashable {
        /// An IDR arrived, but no SPS or no PPS came with it, before it, or in the SDP (the first packet — the
        /// STAP-A carrying them — was lost or overtaken).
        case noParameterSets = "no_parameter_sets"
        /// Pictures arrive but no IDR has yet: joined late, or the first IDR was lost whole.
        case noKeyframe = "no_keyframe"
        /// An access unit could not be completed (a packet lost for good, a broken payload).
        case accessUnitLost = "access_unit_lost"
        /// The decoder rejected an access unit or concealed damage in it.
        case decoderError = "decoder_error"
        /// No picture yet, and a NACK went unanswered for a retry interval: rather than wait for the retries and the
        /// reorder buffer to give up (300 ms), ask for an IDR as well.
        case retransmissionMissing = "retransmission_missing"
        /// The application asked (`RTPReceiver.requestKeyframe()`).
        case requested
    }

    /// Whose NAL unit types these are.
    public let codec: VideoCodec
    /// The parameter-set types (nal_unit_type) seen so far.
    private var parameterSetsSeen: Set<UInt8> = []
    public var hasSequenceParameterSet: Bool { parameterSetsSeen.contains(codec.parameterSetNALUnitTypes[codec == .hevc ? 1 : 0]) }
    public var hasPictureParameterSet: Bool { parameterSetsSeen.contains(codec.parameterSetNALUnitTypes.last!) }
    /// Every parameter set a keyframe needs is known (H.264: SPS and PPS; HEVC: VPS, SPS and PPS).
    public var hasParameterSets: Bool { codec.parameterSetNALUnitTypes.allSatisfy(parameterSetsSeen.contains) }
    /// Nil while pictures can be decoded; else why a new IDR is needed.
    public private(set) var waiting: Reason? = .noKeyframe
    /// RTP timestamp of the last decodable IDR, when given: a decoder reports on access units after the receiver
    /// delivered them, so a failure of one from before this IDR is already answered by it.
    public private(set) var keyframeTimestamp: UInt32?

    /// `parameterSets`: NAL units known before the stream starts (the SDP's sprop-parameter-sets; HEVC's
    /// sprop-vps/sps/pps).
    public init(codec: VideoCodec = .h264, parameterSets: [[UInt8]] = []) {
        self.codec = codec
        notice(nalUnitTypes: parameterSets.compactMap { unit in unit.first.map { codec.nalUnitType(firstByte: $0) } })
    }

    /// A complete access unit, by the types of its NAL units (and its RTP timestamp); returns the reason to send
    /// PLI now, if any.
    public mutating func accessUnitReceived(nalUnitTypes: [UInt8], timestamp: UInt32? = nil) -> Reason? {
        notice(nalUnitTypes: nalUnitTypes)
        if nalUnitTypes.contains(where: codec.isRandomAccessSlice(nalUnitType:)) {
            if hasParameterSets {
                waiting = nil
                keyframeTimestamp = timestamp
            } else {
                waiting = .noParameterSets
            }
        }
        return waiting
    }

    /// A packet, by the types of the NAL units that begin in it (`H264Payload.startingNALUnitTypes`), before its
    /// access unit is complete: an IDR slice while no SPS/PPS is known asks at once. At the start of a stream the
    /// STAP-A with them travels first, so they will not come; and a paced IDR takes tens of milliseconds to arrive
    /// whole, each of which can cost the sender's next frame. Only this: other slices may still wait in the reorder
    /// buffer behind a hole a NACK is about to fill, and are judged once their access unit is released in order.
    /// Parameter sets in the packet count as known. (`RTPReceiver` holds back this PLI while it NACKs the packets
    /// before a first IDR that came without them, `StartOfStreamNACK`: the IDR's access unit asks if they never come.)
    public mutating func packetReceived(nalUnitTypes: [UInt8]) -> Reason? {
        notice(nalUnitTypes: nalUnitTypes)
        guard waiting != nil, nalUnitTypes.contains(where: codec.isRandomAccessSlice(nalUnitType:)) else { return nil }
        return hasParameterSets ? nil : .noParameterSets
    }

    /// A NACK went unanswered for a retry interval (`NACKScheduler.retriesDue`). Only while there is nothing to
    /// decode yet (the start, or since a loss) is that worth an IDR: mid-stream a retry usually fills the hole, and
    /// an IDR is many times the size of the packet. Does not change the state.
    public func retransmissionOverdue() -> Reason? {
        waiting == nil ? nil : .retransmissionMissing
    }

    /// An access unit that never arrived whole: nothing after it decodes cleanly until the next IDR.
    public mutating func accessUnitLost() -> Reason {
        waiting = .accessUnitLost
        return .accessUnitLost
    }

    /// The decoder rejected an access unit (or concealed errors in it), the one with RTP `timestamp` if given; nil
    /// when that access unit came before the last decodable IDR (RFC 3550 timestamps wrap: compared as a signed
    /// 32-bit difference), which already answers it.
    public mutating func decoderFailed(timestamp: UInt32? = nil) -> Reason? {
        if let timestamp, let keyframeTimestamp, Int32(bitPattern: timestamp &- keyframeTimestamp) < 0 { return nil }
        waiting = .decoderError
        return .decoderError
    }

    private mutating func notice(nalUnitTypes: [UInt8]) {
        for type in nalUnitTypes where codec.parameterSetNALUnitTypes.contains(type) { parameterSetsSeen.insert(type) }
    }
}
