import MediaCore

// The vocabulary send-side bandwidth estimation speaks (issue 17): what the sender remembers of each packet it sent
// with a transport-wide sequence number, and what a feedback report — transport-cc (draft-holmer-rmcat-transport-
// wide-cc-extensions-01, RTPFB FMT 15) or RFC 8888 congestion control feedback — says became of them. The RTP send
// session produces it (it numbers the packets and holds their send times); CongestionControl's policies consume it,
// whichever format carried the feedback. Shaped like libwebrtc's `SentPacket`/`PacketResult`/
// `TransportPacketsFeedback` (api/transport/network_types.h), which every GCC description refers to.
//
// Times: `Instant`s of the sender's clock — the one the session is handed — except `PacketResult.arrival`, which is
// on the receiver's clock (transport-cc's reference time plus deltas): only differences between arrivals mean
// something, never an arrival minus a send time.

/// One packet as the transport sent it, keyed by its transport-wide sequence number.
public struct SentPacket: Sendable, Hashable {
    /// Why the packet was sent: estimators count media, retransmissions and probes differently.
    public enum Kind: Sendable, Hashable {
        /// Media (a payloader's packet, sent for the first time).
        case media
        /// A retransmission answering NACK (RFC 4588 RTX, or the original SSRC resent).
        case retransmission
        /// Padding or a probe (RTP padding-only, or a duplicate sent to probe the path's capacity).
        case padding
    }

    /// The transport-wide sequence number, unwrapped: the 16-bit wire value extended to 64 bits in sending order.
    public var sequenceNumber: Int64
    /// When the packet left (the session's `didTransmit` time).
    public var sendTime: Instant
    /// Bytes counted by the estimator: the RTP packet (header, extensions, payload, padding) plus the SRTP tag when
    /// there is one; without IP and UDP headers, as libwebrtc counts.
    public var size: Int
    public var kind: Kind
    /// The probe cluster this packet belongs to when it was sent to probe the path (nil otherwise).
    public var probeClusterID: Int?

    public init(sequenceNumber: Int64, sendTime: Instant, size: Int, kind: Kind = .media, probeClusterID: Int? = nil) {
        self.sequenceNumber = sequenceNumber
        self.sendTime = sendTime
        self.size = size
        self.kind = kind
        self.probeClusterID = probeClusterID
    }
}

/// One sent packet's fate as a feedback report told it.
public struct PacketResult: Sendable, Hashable {
    public var sent: SentPacket
    /// Arrival at the receiver, on the receiver's clock (only differences between arrivals mean something); nil when
    /// the report lists the packet as not received.
    public var arrival: Instant?

    public init(sent: SentPacket, arrival: Instant?) {
        self.sent = sent
        self.arrival = arrival
    }

    public var isReceived: Bool { arrival != nil }
}

/// One feedback report, normalised: the packets it covers in sequence order, with their send records.
public struct TransportPacketsFeedback: Sendable, Hashable {
    /// When the report reached the sender (sender's clock).
    public var feedbackTime: Instant
    /// Every packet the report covers that the sender still remembers, in transport sequence order.
    public var packets: [PacketResult]
    /// Bytes sent and not yet reported on when the report arrived (libwebrtc's `data_in_flight`).
    public var bytesInFlight: Int

    public init(feedbackTime: Instant, packets: [PacketResult], bytesInFlight: Int) {
        self.feedbackTime = feedbackTime
        self.packets = packets
        self.bytesInFlight = bytesInFlight
    }

    /// The packets reported received, in sequence order.
    public var receivedPackets: [PacketResult] { packets.filter(\.isReceived) }
}
