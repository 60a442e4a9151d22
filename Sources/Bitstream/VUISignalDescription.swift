/// The first four groups of vui_parameters( ), which H.264 (§E.1.1) and H.265 (§E.2.1) share word for word:
/// aspect ratio, overscan, video signal type with its colour description, chroma sample location. Both codecs' VUI
/// read them here and copy them into their own fields (kept there under the spec's names).
struct VUISignalDescription {
    var aspectRatioInfoPresentFlag = false
    var aspectRatioIdc: UInt8?
    var sarWidth: UInt16?
    var sarHeight: UInt16?
    var overscanInfoPresentFlag = false
    var overscanAppropriateFlag: Bool?
    var videoSignalTypePresentFlag = false
    var videoFormat: UInt8?
    var videoFullRangeFlag: Bool?
    var colourDescriptionPresentFlag: Bool?
    var colourPrimaries: UInt8?
    var transferCharacteristics: UInt8?
    var matrixCoefficients: UInt8?
    var chromaLocInfoPresentFlag = false
    var chromaSampleLocTypeTopField: Int?
    var chromaSampleLocTypeBottomField: Int?

    /// Reads the four groups, each field stored as soon as it is read, so a caller that copies them out in a
    /// `defer` keeps what was read before a truncation. `group` names the part being read, for the caller's
    /// truncation warning; reserved values are kept and reported in `warnings`.
    mutating func read(
        from reader: inout BitReader, warnings: inout [BitstreamWarning], group: inout String
    ) throws(BitstreamError) {
        group = "aspect_ratio_info"
        aspectRatioInfoPresentFlag = try reader.readFlag()
        if aspectRatioInfoPresentFlag {
            let offset = reader.bitOffset / 8
            let idc = UInt8(try reader.readBits(8))
            aspectRatioIdc = idc
            if idc == H264.VUIParameters.extendedSAR {
                sarWidth = UInt16(try reader.readBits(16))
                sarHeight = UInt16(try reader.readBits(16))
            } else if !H264.VUIParameters.tableE1AspectRatios.contains(idc) {
                // FFmpeg 5.1 refuses such an H.264 SPS ("illegal aspect ratio"); 6.0 and later, and its H.265
                // parser, warn and keep it. It derives only the sample aspect ratio (unknown), so it is kept.
                warnings.append(BitstreamWarning(
                    code: .reservedValue, syntaxElement: "aspect_ratio_idc",
                    reason: "\(idc) is reserved (Table E-1): sample aspect ratio unknown", offset: offset))
            }
        }
        group = "overscan_info"
        overscanInfoPresentFlag = try reader.readFlag()
        if overscanInfoPresentFlag {
            overscanAppropriateFlag = try reader.readFlag()
        }
        group = "video_signal_type"
        videoSignalTypePresentFlag = try reader.readFlag()
        if videoSignalTypePresentFlag {
            let offset = reader.bitOffset / 8
            let format = UInt8(try reader.readBits(3))
            videoFormat = format
            if format > 5 {
                warnings.append(BitstreamWarning(
                    code: .reservedValue, syntaxElement: "video_format", reason: "\(format) is reserved (Table E-2)",
                    offset: offset))
            }
            videoFullRangeFlag = try reader.readFlag()
            let colour = try reader.readFlag()
            colourDescriptionPresentFlag = colour
            if colour {
                colourPrimaries = UInt8(try reader.readBits(8))
                transferCharacteristics = UInt8(try reader.readBits(8))
                matrixCoefficients = UInt8(try reader.readBits(8))
            }
        }
        group = "chroma_loc_info"
        chromaLocInfoPresentFlag = try reader.readFlag()
        if chromaLocInfoPresentFlag {
            chromaSampleLocTypeTopField = try reader.readUE(
                "chroma_sample_loc_type_top_field", max: 5, orWarnInto: &warnings)
            chromaSampleLocTypeBottomField = try reader.readUE(
                "chroma_sample_loc_type_bottom_field", max: 5, orWarnInto: &warnings)
        }
    }
}
