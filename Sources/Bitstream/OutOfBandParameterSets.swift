/// A decoder configuration record (avcC, hvcC): the parameter sets an MP4 keeps out of band, which an Annex-B
/// decoder that starts at a random-access picture needs in band. `AVCC.toAnnexB` puts the missing ones in front of
/// the first random-access slice of a sample, whatever the codec.
public protocol OutOfBandParameterSets: Sendable {
    /// Which NAL unit header the parameter sets and samples use.
    var codec: VideoCodec { get }
    /// Bytes of each NAL unit length prefix in the samples: 1, 2 or 4 (or 3, when a parsed record says so:
    /// FFmpeg reads that too).
    var nalUnitLengthSize: Int { get }
    /// The parameter sets by nal_unit_type, in the order they go in front of a random-access picture (H.264: SPS,
    /// PPS; H.265: VPS, SPS, PPS). Empty groups are skipped.
    var inBandParameterSets: [(nalUnitType: UInt8, nalUnits: [[UInt8]])] { get }
}

extension AVCDecoderConfigurationRecord: OutOfBandParameterSets {
    public var codec: VideoCodec { .h264 }
    public var inBandParameterSets: [(nalUnitType: UInt8, nalUnits: [[UInt8]])] {
        [(7, sequenceParameterSets), (8, pictureParameterSets)]
    }
}

extension VideoCodec {
    /// Parses this codec's decoder configuration record: an avcC payload (H.264) or an hvcC payload (H.265).
    /// - Throws: what `AVCDecoderConfigurationRecord(parsing:)` or `HEVC.DecoderConfigurationRecord(parsing:)` throws.
    public func decoderConfigurationRecord(parsing bytes: ArraySlice<UInt8>) throws(BitstreamError)
        -> any OutOfBandParameterSets
    {
        switch self {
        case .h264: try AVCDecoderConfigurationRecord(parsing: bytes)
        case .hevc: try HEVC.DecoderConfigurationRecord(parsing: bytes)
        }
    }

    /// The record box's name: "avcC" or "hvcC".
    public var decoderConfigurationRecordName: String {
        switch self {
        case .h264: "avcC"
        case .hevc: "hvcC"
        }
    }
}
