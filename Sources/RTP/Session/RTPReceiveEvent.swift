import Bitstream
import MediaCore

/// What an `RTPReceiveSession` tells its owner (`pollEvent()`), in the order it happened.
public enum RTPReceiveEvent: Sendable, Equatable {
    /// A complete access unit, in order.
    case accessUnit(DeliveredAccessUnit)
    /// Packets given up on for good (sequence numbers as on the wire): the NACKs went out while the hole was open.
    case packetsLost([UInt16])
    /// An access unit that was started but could not be completed, by its RTP timestamp.
    case accessUnitDropped(rtpTimestamp: UInt32, reason: String)
    /// A PLI went out (the transmit is queued), and why it was wanted. Throttled requests are not reported.
    case keyframeRequested(PictureRecovery.Reason)
    /// The sender said BYE for the source being received (once).
    case goodbye
    /// Input that was dropped or could not be used; the stream goes on.
    case warning(RTPReceiveWarning)
}

/// Input an `RTPReceiveSession` dropped, and why.
public enum RTPReceiveWarning: Sendable, Equatable {
    /// A datagram that is not an RTP packet (RFC 3550 §5.1).
    case malformedPacket(RTPError.Code, reason: String)
    /// RTP of a payload type other than the configured one: reported once per payload type, counted always.
    case otherPayloadType(UInt8)
    /// Payloads of another codec than the configured one (H.265 parameter sets at an H.264 receiver), reported at
    /// the first; `RTPReceiveStatistics.otherCodecPackets` counts them.
    case otherCodec(VideoCodec)
    /// A payload that breaks RFC 6184; its access unit is dropped too.
    case malformedPayload(RTPError.Code, reason: String)
    /// An RTCP datagram that is not a valid compound (RFC 3550 §6.1).
    case malformedRTCP(RTPError.Code, reason: String)
}

/// An access unit as the session delivers it: what was depacketized, and the SPS/PPS the session put in front
/// (with `primeParameterSets`: the first access unit and IDRs that came without them, `ParameterSetPrimer`).
public struct DeliveredAccessUnit: Sendable, Equatable {
    /// The NAL units as they came over RTP.
    public var received: ReceivedAccessUnit
    /// Known parameter sets the access unit lacked, to go in front of it for a decoder (empty when none).
    public var primedParameterSets: [[UInt8]]

    public init(received: ReceivedAccessUnit, primedParameterSets: [[UInt8]] = []) {
        self.received = received
        self.primedParameterSets = primedParameterSets
    }

    public var rtpTimestamp: UInt32 { received.timestamp }
    public var isKeyframe: Bool { received.isKeyframe }

    /// The access unit as a decoder should get it (the primed parameter sets first), in the one currency every rtenc
    /// module hands on: Annex-B, the NAL unit ranges laid down while joining, the RTP timestamp as presentation time.
    /// Built when asked for (one copy of the bytes).
    public var accessUnit: CodedAccessUnit {
        primedParameterSets.isEmpty ? received.accessUnit
            : ReceivedAccessUnit(timestamp: received.timestamp, nalUnits: primedParameterSets + received.nalUnits).accessUnit
    }
}
