import Bitstream

/// The session's one seam onto H.264 and H.265 syntax, all of it the Bitstream module's: split an Annex-B access
/// unit into NAL units typed by the codec's header, keep the latest parameter sets, decide whether the access unit
/// is a random-access point from its NAL unit types, and read the QP from the first slice header — so the stats
/// report what the bitstream says, not what the encoder claims.
struct FrameAnalyzer {
    struct Analysis {
        var nalUnits: [EncodedFrame.NALUnitRange]
        /// A random-access point: an IDR picture (H.264 nal_unit_type 5); for HEVC any IRAP picture
        /// (nal_unit_type 16…23: IDR_W_RADL, IDR_N_LP, CRA, BLA — the session's libx265 writes IDRs only).
        var isKeyframe: Bool
        var qp: Int?
        /// Parameter-set NAL units found in this access unit (header onward); VPS for HEVC only.
        var videoParameterSets: [[UInt8]]
        var sequenceParameterSets: [[UInt8]]
        var pictureParameterSets: [[UInt8]]
    }

    let codec: VideoCodec
    private var parameterSets = H264.ParameterSets()
    private var hevcParameterSets = HEVC.ParameterSets()

    init(codec: VideoCodec = .h264) {
        self.codec = codec
    }

    /// NAL units of an Annex-B access unit with their `codec` nal_unit_type (one array, no intermediate). An HEVC
    /// NAL unit shorter than its 2-byte header is malformed output.
    static func nalUnits(
        of annexB: [UInt8], codec: VideoCodec = .h264
    ) throws(EncoderSessionError) -> [EncodedFrame.NALUnitRange] {
        var units: [EncodedFrame.NALUnitRange] = []
        units.reserveCapacity(8)
        let headerSize = codec == .hevc ? HEVC.NALUnitHeader.size : 1
        do {
            try AnnexB.forEachNALUnit(in: annexB[...]) { nalUnit throws(BitstreamError) in
                guard units.count < AnnexB.maxNALUnitsPerAccessUnit else {
                    throw BitstreamError(
                        code: .limitExceeded, reason: "more than \(AnnexB.maxNALUnitsPerAccessUnit) NAL units")
                }
                guard nalUnit.count >= headerSize else {
                    throw BitstreamError(
                        code: .truncated, reason: "a \(nalUnit.count)-byte NAL unit cannot hold a \(codec) NAL unit header")
                }
                units.append(
                    .init(type: codec.nalUnitType(firstByte: nalUnit[nalUnit.startIndex]), range: nalUnit.indices))
            }
        } catch {
            throw .make(.malformedOutput, "encoder output is not Annex-B \(codec): \(error)")
        }
        return units
    }

    mutating func analyze(_ annexB: [UInt8]) throws(EncoderSessionError) -> Analysis {
        try analyze(annexB, nalUnits: Self.nalUnits(of: annexB, codec: codec))
    }

    /// `analyze` for an access unit whose NAL units were already found (`nalUnits(of:codec:)`), so they are not
    /// scanned for again.
    mutating func analyze(
        _ annexB: [UInt8], nalUnits units: [EncodedFrame.NALUnitRange]
    ) throws(EncoderSessionError) -> Analysis {
        guard !units.isEmpty else { throw .make(.malformedOutput, "encoder output holds no Annex-B NAL unit") }
        var analysis = Analysis(
            nalUnits: units, isKeyframe: false, qp: nil, videoParameterSets: [], sequenceParameterSets: [],
            pictureParameterSets: [])
        switch codec {
        case .h264: try analyzeH264(annexB, into: &analysis)
        case .hevc: try analyzeHEVC(annexB, into: &analysis)
        }
        return analysis
    }

    private mutating func analyzeH264(_ annexB: [UInt8], into analysis: inout Analysis) throws(EncoderSessionError) {
        for unit in analysis.nalUnits {
            let nalUnit = annexB[unit.range]
            do {
                switch NALUnitType(rawValue: unit.type) {
                case .sps, .pps:
                    try parameterSets.update(nalUnit: nalUnit)
                    if unit.type == NALUnitType.sps.rawValue {
                        analysis.sequenceParameterSets.append(Array(nalUnit))
                    } else {
                        analysis.pictureParameterSets.append(Array(nalUnit))
                    }
                case .idr, .slice:
                    if unit.type == NALUnitType.idr.rawValue { analysis.isKeyframe = true }
                    if analysis.qp == nil {
                        analysis.qp = try H264.SliceHeader(nalUnit: nalUnit, parameterSets: parameterSets).qp
                    }
                default:
                    break
                }
            } catch {
                throw .make(.malformedOutput, "encoder output NAL unit type \(unit.type) does not parse: \(error)")
            }
        }
    }

    /// HEVC: keyframe and parameter sets from the NAL unit types (H.265 Table 7-1), SliceQpY (26 + init_qp_minus26
    /// + slice_qp_delta) from the first slice segment's header with the VPS/SPS/PPS seen so far.
    private mutating func analyzeHEVC(_ annexB: [UInt8], into analysis: inout Analysis) throws(EncoderSessionError) {
        for unit in analysis.nalUnits {
            let nalUnit = annexB[unit.range]
            let type = HEVC.NALUnitType(rawValue: unit.type)
            do {
                switch type {
                case .vps, .sps, .pps:
                    try hevcParameterSets.update(nalUnit: nalUnit)
                    switch type {
                    case .vps: analysis.videoParameterSets.append(Array(nalUnit))
                    case .sps: analysis.sequenceParameterSets.append(Array(nalUnit))
                    default: analysis.pictureParameterSets.append(Array(nalUnit))
                    }
                case _ where type.isVCL:
                    if type.isIRAP { analysis.isKeyframe = true }
                    // Coded slice segments are types 0…9 and 16…21; the reserved VCL types carry nothing to read.
                    if analysis.qp == nil, type.rawValue <= 21, !(10...15).contains(type.rawValue) {
                        analysis.qp = try HEVC.SliceSegmentHeader(nalUnit: nalUnit, parameterSets: hevcParameterSets)
                            .sliceQpY
                    }
                default:
                    break
                }
            } catch {
                throw .make(.malformedOutput, "encoder output NAL unit type \(type) does not parse: \(error)")
            }
        }
    }
}
