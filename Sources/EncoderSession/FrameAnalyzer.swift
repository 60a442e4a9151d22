import Bitstream

/// The session's one seam onto H.264 syntax, all of it the Bitstream module's: split an Annex-B access unit into NAL
/// units, keep the latest SPS/PPS, and read SliceQPY from the first slice header — so the stats report what the
/// bitstream says, not what the encoder claims.
struct FrameAnalyzer {
    struct Analysis {
        var nalUnits: [EncodedFrame.NALUnitRange]
        var isIDR: Bool
        var qp: Int?
        /// SPS/PPS NAL units found in this access unit (header byte onward).
        var sequenceParameterSets: [[UInt8]]
        var pictureParameterSets: [[UInt8]]
    }

    private var parameterSets = H264.ParameterSets()

    /// NAL units of an Annex-B access unit with their types (one array, no intermediate).
    static func nalUnits(of annexB: [UInt8]) throws(EncoderSessionError) -> [EncodedFrame.NALUnitRange] {
        var units: [EncodedFrame.NALUnitRange] = []
        units.reserveCapacity(8)
        do {
            try AnnexB.forEachNALUnit(in: annexB[...]) { nalUnit throws(BitstreamError) in
                guard units.count < AnnexB.maxNALUnitsPerAccessUnit else {
                    throw BitstreamError(
                        code: .limitExceeded, reason: "more than \(AnnexB.maxNALUnitsPerAccessUnit) NAL units")
                }
                units.append(
                    .init(type: NALUnitHeader(nalUnit[nalUnit.startIndex]).nalUnitType.rawValue, range: nalUnit.indices)
                )
            }
        } catch {
            throw .malformedOutput("encoder output is not Annex-B: \(error)")
        }
        return units
    }

    mutating func analyze(_ annexB: [UInt8]) throws(EncoderSessionError) -> Analysis {
        try analyze(annexB, nalUnits: Self.nalUnits(of: annexB))
    }

    /// `analyze` for an access unit whose NAL units were already found (`nalUnits(of:)`), so they are not scanned
    /// for again.
    mutating func analyze(
        _ annexB: [UInt8], nalUnits units: [EncodedFrame.NALUnitRange]
    ) throws(EncoderSessionError) -> Analysis {
        guard !units.isEmpty else { throw .malformedOutput("encoder output holds no Annex-B NAL unit") }
        var analysis = Analysis(
            nalUnits: units, isIDR: false, qp: nil, sequenceParameterSets: [], pictureParameterSets: [])
        for unit in units {
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
                    if unit.type == NALUnitType.idr.rawValue { analysis.isIDR = true }
                    if analysis.qp == nil {
                        analysis.qp = try H264.SliceHeader(nalUnit: nalUnit, parameterSets: parameterSets).qp
                    }
                default:
                    break
                }
            } catch {
                throw .malformedOutput("encoder output NAL unit type \(unit.type) does not parse: \(error)")
            }
        }
        return analysis
    }
}
