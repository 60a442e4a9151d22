// SPS and PPS parse: the whole input is one NAL unit, header byte included (so its nal_unit_type decides which
// parser gets past the first check; both are always tried).
//
// The PPS parser sees the SPS table it would in a stream: x264's High SPS, and the input itself when it parses as an
// SPS, so the 8×8 scaling-list path (which depends on chroma_format_idc) is reachable. Every derived value of a
// parsed SPS is computed too: overflow there would trap.
import Bitstream
import FuzzSupport

let x264Sets: H264.ParameterSets = {
    var sets = H264.ParameterSets()
    // Constant bytes: a failure here is a bug in the parser, found on the first run.
    _ = try? sets.update(nalUnit: X264ParameterSets.highSPS[...])
    return sets
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParameterSets(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let nalUnit = fuzzBytes(data, size)[...]
    var sets = x264Sets
    if let sps = try? H264.SequenceParameterSet(nalUnit: nalUnit) {
        sets.sequenceParameterSets[sps.seqParameterSetId] = sps
        exerciseDerivedValues(sps)
    }
    if let pps = try? H264.PictureParameterSet(nalUnit: nalUnit, sequenceParameterSets: sets.sequenceParameterSets) {
        check((0...255).contains(pps.picParameterSetId), "pic_parameter_set_id \(pps.picParameterSetId)")
        check((0...31).contains(pps.seqParameterSetId), "seq_parameter_set_id \(pps.seqParameterSetId)")
    }
    _ = try? sets.update(nalUnit: nalUnit)
    return 0
}

/// Reads every computed property; the values themselves are only checked for the bounds the parser promises.
func exerciseDerivedValues(_ sps: H264.SequenceParameterSet) {
    check((0...31).contains(sps.seqParameterSetId), "seq_parameter_set_id \(sps.seqParameterSetId)")
    check(sps.picWidthInMbs <= H264.SequenceParameterSet.maxPicWidthInMbs, "PicWidthInMbs \(sps.picWidthInMbs)")
    check(sps.picHeightInMapUnits <= H264.SequenceParameterSet.maxPicHeightInMapUnits,
        "PicHeightInMapUnits \(sps.picHeightInMapUnits)")
    var sink = sps.chromaArrayType &+ sps.subWidthC &+ sps.subHeightC &+ sps.bitDepthLuma &+ sps.bitDepthChroma
    sink = sink &+ sps.log2MaxFrameNum &+ (sps.log2MaxPicOrderCntLsb ?? 0) &+ sps.picSizeInMapUnits
    sink = sink &+ sps.frameHeightInMbs &+ sps.cropUnitX &+ sps.cropUnitY &+ sps.width &+ sps.height
    sink = sink &+ sps.codedWidth &+ sps.codedHeight &+ Int(sps.fps ?? 0)
    _ = sps.profileLevelID
    _ = sps.profile
    _ = sps.level
    blackHole(sink)
}

@inline(never)
func blackHole(_ value: Int) {
    if value == 0x5EED_F00D { print("") }
}
