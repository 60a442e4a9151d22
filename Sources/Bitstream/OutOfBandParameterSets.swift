/// A decoder configuration record (avcC, hvcC): the parameter sets an MP4 keeps out of band, which an Annex-B
/// decoder that starts at a random-access picture needs in band. `AVCC.toAnnexB` puts the missing ones in front of
/// the first random-access slice of a sample, whatever the codec.
public protocol OutOfBandParameterSets: Sendable {
    /// Which NAL unit header the parameter sets and samples use.
    var codec: VideoCodec { get }
    /// Bytes of each NAL unit length prefix in the samples: 1, 2 or 4.
    var nalUnitLengthSize: Int { get }
    /// The parameter sets by nal_unit_type, in the order they go in front of a random-access picture (H.264: SPS,
    /// PPS; H.265: VPS, SPS, PPS). Empty groups are skipped.
    var inBandParameterSets: [(nalUnitType: UInt8, nalUnits: [[UInt8]])] { get }
}

extension VideoCodec {
    /// Whether nal_unit_type `type` is a slice of a random-access picture: an IDR slice (5) in H.264, an IRAP
    /// slice (BLA, IDR, CRA: 16…23) in H.265.
    public func isRandomAccessSlice(nalUnitType type: UInt8) -> Bool {
        switch self {
        case .h264: type == 5
        case .hevc: (16...23).contains(type)
        }
    }
}

extension AVCDecoderConfigurationRecord: OutOfBandParameterSets {
    public var codec: VideoCodec { .h264 }
    public var inBandParameterSets: [(nalUnitType: UInt8, nalUnits: [[UInt8]])] {
        [(7, sequenceParameterSets), (8, pictureParameterSets)]
    }
}
