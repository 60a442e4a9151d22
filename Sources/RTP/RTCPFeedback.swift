/// Feedback messages: RFC 4585 §6 (generic NACK, PLI), RFC 5104 §4 (FIR, TMMBR/TMMBN) and
/// draft-alvestrand-rmcat-remb (REMB). All share the RFC 4585 §6.1 layout:
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|   FMT   |       PT      |          length               |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  SSRC of packet sender                        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  SSRC of media source                         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     :            Feedback Control Information (FCI)                 :
///
/// PT 205 (RTPFB): FMT 1 generic NACK, 3 TMMBR, 4 TMMBN (11 RFC 8888 CCFB and 15 transport-cc have files of their own).
/// PT 206 (PSFB): FMT 1 PLI, 4 FIR, 15 application (REMB).

/// Picture Loss Indication (RFC 4585 §6.3.1): no FCI.
public struct PictureLossIndication: Sendable, Equatable {
    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }
}

/// Full Intra Request (RFC 5104 §4.3.1). FCI entries:
///
///     |                              SSRC                             |
///     | Seq nr.       |    Reserved                                   |
///
/// The media-source SSRC of the common header is unused (0); the target is in each entry.
public struct FullIntraRequest: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var ssrc: UInt32
        /// Incremented by the requester for each new request; repeats of the same number are the same request.
        public var sequenceNumber: UInt8
        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }
    public var senderSSRC: UInt32
    public var entries: [Entry]
    public init(senderSSRC: UInt32, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.entries = entries
    }
}

/// Generic NACK (RFC 4585 §6.2.1). FCI entries:
///
///     |            PID                |             BLP               |
///
/// PID is a lost sequence number; bit i of BLP (LSB = bit 0) means PID + i + 1 is lost too.
public struct GenericNACK: Sendable, Equatable {
    public struct Pair: Sendable, Equatable {
        public var packetID: UInt16
        public var lostBitmask: UInt16
        public init(packetID: UInt16, lostBitmask: UInt16) {
            self.packetID = packetID
            self.lostBitmask = lostBitmask
        }
    }
    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var pairs: [Pair]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, pairs: [Pair]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.pairs = pairs
    }

    /// Packs lost sequence numbers, given in sending order (wraparound allowed), into PID+BLP pairs.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lost: some Sequence<UInt16>) {
        var pairs: [Pair] = []
        for sequenceNumber in lost {
            if let last = pairs.last {
                let distance = sequenceNumber &- last.packetID  // modulo 2^16
                if distance >= 1 && distance <= 16 {
                    pairs[pairs.count - 1].lostBitmask |= 1 << (distance - 1)
                    continue
                }
                if distance == 0 { continue }
            }
            pairs.append(Pair(packetID: sequenceNumber, lostBitmask: 0))
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, pairs: pairs)
    }

    /// Every sequence number the pairs name, in order.
    public var lostSequenceNumbers: [UInt16] {
        var result: [UInt16] = []
        for pair in pairs {
            result.append(pair.packetID)
            for bit in 0 ..< 16 where pair.lostBitmask & (1 << bit) != 0 {
                result.append(pair.packetID &+ UInt16(bit) &+ 1)
            }
        }
        return result
    }
}

/// A bitrate as RFC 5104 §4.2.1.1 / REMB carry it: mantissa × 2^exponent bits per second.
enum MantissaExponent {
    /// Smallest exponent whose mantissa fits `mantissaBits`; exact when the bitrate fits, rounded down otherwise.
    static func encode(_ bitrate: UInt64, mantissaBits: Int) -> (mantissa: UInt32, exponent: UInt8) {
        var exponent: UInt8 = 0
        var mantissa = bitrate
        while mantissa >= 1 << mantissaBits {
            mantissa >>= 1
            exponent += 1
        }
        return (UInt32(mantissa), exponent)
    }

    static func decode(mantissa: UInt32, exponent: UInt8) -> UInt64 {
        // A 6-bit exponent can shift an 18-bit mantissa past 64 bits: saturate instead of trapping on hostile input.
        guard exponent < 64, UInt64(mantissa).leadingZeroBitCount >= Int(exponent) else { return .max }
        return UInt64(mantissa) << exponent
    }
}

/// Temporary Maximum Media Stream Bit Rate Request / Notification (RFC 5104 §4.2.1, §4.2.2). FCI entries:
///
///     |                              SSRC                             |
///     | MxTBR Exp |  MxTBR Mantissa                 |Measured Overhead|
///
/// Exp 6 bits, mantissa 17 bits, overhead 9 bits (bytes of per-packet overhead the requester counted).
public struct TemporaryMaximumBitrate: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var ssrc: UInt32
        /// Bits per second, as mantissa × 2^exp (so large values lose low bits).
        public var bitrate: UInt64
        public var overhead: UInt16
        public init(ssrc: UInt32, bitrate: UInt64, overhead: UInt16) {
            self.ssrc = ssrc
            self.bitrate = bitrate
            self.overhead = overhead
        }
    }
    public var senderSSRC: UInt32
    public var entries: [Entry]
    public init(senderSSRC: UInt32, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.entries = entries
    }
}

/// Receiver Estimated Maximum Bitrate (draft-alvestrand-rmcat-remb-03 §2.2), PSFB FMT 15:
///
///     |  Unique identifier 'R' 'E' 'M' 'B'                            |
///     |  Num SSRC     | BR Exp    |  BR Mantissa                      |
///     |   SSRC feedback                                               |
///
/// Exp 6 bits, mantissa 18 bits. Media-source SSRC in the common header is 0.
public struct ReceiverEstimatedMaximumBitrate: Sendable, Equatable {
    public var senderSSRC: UInt32
    public var bitrate: UInt64
    public var ssrcs: [UInt32]
    public init(senderSSRC: UInt32, bitrate: UInt64, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }
    static let identifier: UInt32 = 0x5245_4D42  // "REMB"
}
