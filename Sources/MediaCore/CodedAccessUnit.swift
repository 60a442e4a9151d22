/// The video codecs rtenc codes, parses and carries.
public enum VideoCodec: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// H.264 / AVC (ITU-T H.264): 1-byte NAL unit header, nal_unit_type in its low 5 bits.
    case h264
    /// H.265 / HEVC (ITU-T H.265): 2-byte NAL unit header, nal_unit_type in bits 1…6 of the first byte.
    case hevc

    public var description: String { rawValue }

    /// nal_unit_type of the NAL unit whose header starts with `firstByte`.
    public func nalUnitType(firstByte: UInt8) -> UInt8 {
        switch self {
        case .h264: firstByte & 0x1F
        case .hevc: (firstByte >> 1) & 0x3F
        }
    }
}

/// One coded picture — an access unit — as every module hands it on: the encoder's output, the file readers, the
/// depacketizer and the sender. The bytes, where each NAL unit lies in them (found once, by whoever produced the
/// access unit, and never scanned for again), the codec, whether it is a random-access point, and its times.
public struct CodedAccessUnit: Sendable, Hashable {
    /// How NAL units are delimited in `bytes`.
    public enum Framing: Sendable, Hashable {
        /// Start codes (ITU-T H.264/H.265 Annex B): what RTP payloaders and .h264 files want.
        case annexB
        /// Big-endian lengths of `lengthSize` bytes (1, 2 or 4; ISO/IEC 14496-15): MP4 samples, VideoToolbox output.
        case lengthPrefixed(lengthSize: Int)
    }

    /// One NAL unit of the access unit: its nal_unit_type and its bytes in `bytes` (header onward, without the start
    /// code or length in front).
    public struct NALUnit: Sendable, Hashable {
        public var type: UInt8
        public var range: Range<Int>

        public init(type: UInt8, range: Range<Int>) {
            self.type = type
            self.range = range
        }
    }

    public var codec: VideoCodec
    public var bytes: [UInt8]
    public var framing: Framing
    public var nalUnits: [NALUnit]
    /// A picture a decoder can start from: an IDR (H.264) or an IRAP picture (HEVC).
    public var isKeyframe: Bool
    public var presentationTime: MediaTime
    public var decodeTime: MediaTime

    public init(
        codec: VideoCodec, bytes: [UInt8], framing: Framing, nalUnits: [NALUnit], isKeyframe: Bool,
        presentationTime: MediaTime, decodeTime: MediaTime? = nil
    ) {
        self.codec = codec
        self.bytes = bytes
        self.framing = framing
        self.nalUnits = nalUnits
        self.isKeyframe = isKeyframe
        self.presentationTime = presentationTime
        self.decodeTime = decodeTime ?? presentationTime
    }

    /// The bytes of each NAL unit, in order (slices of `bytes`, no copies).
    public var nalUnitBytes: [ArraySlice<UInt8>] { nalUnits.map { bytes[$0.range] } }
}
