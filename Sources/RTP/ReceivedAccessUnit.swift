import Bitstream
import MediaCore

/// An access unit rebuilt from RTP: its codec, its NAL units in order, and the RTP timestamp they shared.
public struct ReceivedAccessUnit: Sendable, Equatable {
    public let codec: VideoCodec
    public var timestamp: UInt32
    public var nalUnits: [[UInt8]] {
        didSet { isKeyframe = Self.holdsRandomAccessPoint(nalUnits, codec) }
    }
    /// An IDR access unit (H.264) or an IRAP one (HEVC): decided once, here, from the NAL unit headers the
    /// depacketizer already holds.
    public private(set) var isKeyframe: Bool

    public init(codec: VideoCodec = .h264, timestamp: UInt32, nalUnits: [[UInt8]]) {
        self.codec = codec
        self.timestamp = timestamp
        self.nalUnits = nalUnits
        isKeyframe = Self.holdsRandomAccessPoint(nalUnits, codec)
    }

    /// Bitstream's one classification of random-access slices per codec (`VideoCodec.isRandomAccessSlice`).
    private static func holdsRandomAccessPoint(_ nalUnits: [[UInt8]], _ codec: VideoCodec) -> Bool {
        nalUnits.contains { unit in
            unit.first.map { codec.isRandomAccessSlice(nalUnitType: codec.nalUnitType(firstByte: $0)) } ?? false
        }
    }

    /// Annex-B byte stream form: each NAL unit after a 4-byte start code.
    public var annexB: [UInt8] { accessUnit.bytes }

    /// The access unit as the `CodedAccessUnit` every rtenc module hands on: Annex-B framing (a 4-byte start code
    /// before each NAL unit), the NAL unit ranges laid down while joining (no scan), and as presentation time the
    /// RTP timestamp on the 90 kHz clock (both codecs') — as sent: it starts at the sender's random offset and wraps at 2^32.
    public var accessUnit: CodedAccessUnit {
        CodedAccessUnit(joiningAnnexB: nalUnits, codec: codec, isKeyframe: isKeyframe,
                        presentationTime: MediaTime(value: Int64(timestamp), timescale: RTPClock.h264ClockRate))
    }
}
