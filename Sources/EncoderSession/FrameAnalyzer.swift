/// The session's one seam onto H.264 syntax: split an Annex-B access unit into NAL units, keep the latest SPS/PPS,
/// and read SliceQPY from the first slice header — so the stats report what the bitstream says, not what the
/// encoder claims.
///
/// Interim: built on the small readers in `MiniH264.swift` until the Bitstream module's AnnexB /
/// SequenceParameterSet / PictureParameterSet / SliceHeader land on main; switching is a change to this file and
/// the removal of MiniH264.swift.
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

    mutating func analyze(_ annexB: [UInt8]) throws(EncoderSessionError) -> Analysis {
        let ranges = MiniH264.splitAnnexB(annexB)
        guard !ranges.isEmpty else { throw .malformedOutput("encoder output holds no Annex-B NAL unit") }
        var analysis = Analysis(
            nalUnits: [], isIDR: false, qp: nil, sequenceParameterSets: [], pictureParameterSets: [])
        for range in ranges {
            let type = annexB[range.lowerBound] & 0x1F
            analysis.nalUnits.append(.init(type: type, range: range))
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
