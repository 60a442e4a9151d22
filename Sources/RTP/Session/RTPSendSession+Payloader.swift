import MediaCore

extension RTPSendSession {
    /// The payloader for `configuration.codec`: RFC 6184's for H.264, RFC 7798's for HEVC, with the configuration's
    /// payload size and aggregation, knowing the parameter sets given (put in front of keyframes that lack them).
    /// - Throws: `.invalidValue` for a payload size the format cannot use, a VPS given for H.264, or H.264's
    ///   single NAL unit mode asked of HEVC (RFC 7798 has no packetization modes: it would aggregate and fragment).
    package static func makePayloader(
        _ configuration: Configuration, videoParameterSet: [UInt8]?, sequenceParameterSet: [UInt8]?, pictureParameterSet: [UInt8]?
    ) throws(RTPError) -> any RTPPayloader {
        let settings = configuration.payloader
        switch configuration.codec {
        case .h264:
            guard videoParameterSet == nil else { throw .make(.invalidValue, "a video parameter set (VPS) was given for an H.264 stream") }
            return try H264Payloader(configuration: settings, sequenceParameterSet: sequenceParameterSet,
                                     pictureParameterSet: pictureParameterSet)
        case .hevc:
            guard settings.packetizationMode == .nonInterleaved else {
                throw .make(.invalidValue, "packetization mode \(settings.packetizationMode.rawValue) is H.264's (RFC 6184); HEVC has none")
            }
            return try H265Payloader(
                configuration: H265PayloaderConfiguration(aggregation: settings.aggregation, maxPayloadSize: settings.maxPayloadSize,
                                                          insertParameterSetsBeforeIRAP: settings.insertParameterSetsBeforeIDR),
                videoParameterSet: videoParameterSet, sequenceParameterSet: sequenceParameterSet, pictureParameterSet: pictureParameterSet)
        }
    }
}
