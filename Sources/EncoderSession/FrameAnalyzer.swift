import Bitstream

/// The session's one seam onto H.264 syntax: split an Annex-B access unit into NAL units, keep the latest SPS/PPS,
/// and read SliceQPY from the first slice header — so the stats report what the bitstream says, not what the
/// encoder claims.
///
/// NAL unit splitting is the Bitstream module's `AnnexB`. SPS/PPS/slice-header reading is interim: the small
/// readers in `MiniH264.swift` stand in until Bitstream's SequenceParameterSet / PictureParameterSet / SliceHeader
/// land on main; switching is a change to this file and the removal of MiniH264.swift.
struct FrameAnalyzer {
    struct Analysis {
        var nalUnits: [EncodedFrame.NALUnitRange]
        var isIDR: Bool
        var qp: Int?
        /// SPS/PPS NAL units found in this access unit (header byte onward).
        var sequenceParameterSets: [[UInt8]]
        var pictureParameterSets: [[UInt8]]
    }

    private(set) var sps: MiniH264.SPS?
    private(set) var pps: MiniH264.PPS?

    /// Reads parameter sets out of Annex-B extradata (AVCC output keeps them out of band).
    mutating func absorbParameterSets(_ annexB: [UInt8]) throws(EncoderSessionError) {
        _ = try analyze(annexB)
    }

    /// NAL units of an Annex-B access unit with their types.
    static func nalUnits(of annexB: [UInt8]) throws(EncoderSessionError) -> [EncodedFrame.NALUnitRange] {
        let ranges: [Range<Int>]
        do {
            ranges = try AnnexB.nalUnitRanges(in: annexB[...])
        } catch {
            throw .malformedOutput("encoder output is not Annex-B: \(error)")
        }
        return ranges.map { .init(type: NALUnitHeader(annexB[$0.lowerBound]).nalUnitType.rawValue, range: $0) }
    }

    mutating func analyze(_ annexB: [UInt8]) throws(EncoderSessionError) -> Analysis {
        let units = try Self.nalUnits(of: annexB)
        guard !units.isEmpty else { throw .malformedOutput("encoder output holds no Annex-B NAL unit") }
        var analysis = Analysis(
            nalUnits: [], isIDR: false, qp: nil, sequenceParameterSets: [], pictureParameterSets: [])
        for unit in units {
            let type = unit.type, range = unit.range
            analysis.nalUnits.append(unit)
            switch type {
            case 7:
                let bytes = Array(annexB[range])
                analysis.sequenceParameterSets.append(bytes)
                sps = try MiniH264.SPS(nalUnit: bytes[...])
            case 8:
                let bytes = Array(annexB[range])
                analysis.pictureParameterSets.append(bytes)
                pps = try MiniH264.PPS(nalUnit: bytes[...])
            case 1, 5:
                if type == 5 { analysis.isIDR = true }
                if analysis.qp == nil, let sps, let pps {
                    analysis.qp = try MiniH264.sliceQP(nalUnit: annexB[range], sps: sps, pps: pps)
                }
            default:
                break
            }
        }
        return analysis
    }
}
