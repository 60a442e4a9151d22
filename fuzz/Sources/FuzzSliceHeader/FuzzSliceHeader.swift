// Slice header parse, with the parameter sets the input brings.
//
// The input is an Annex-B stream (as the seeds are: x264 SPS, PPS and slice NAL units cut short after their headers).
// Every SPS and PPS goes into the parameter-set table, every coded slice through SliceHeader(nalUnit:parameterSets:),
// and all NAL units through the access-unit splitter, which parses slice headers its own way. An input with no
// start code is taken as one slice NAL unit parsed against x264's High SPS and PPS, so plain mutated slices reach
// the header syntax too.
import Bitstream
import FuzzSupport

let x264Sets: H264.ParameterSets = {
    var sets = H264.ParameterSets()
    // Constant bytes: a failure here is a bug in the parser, found on the first run.
    _ = try? sets.update(nalUnit: X264ParameterSets.highSPS[...])
    _ = try? sets.update(nalUnit: X264ParameterSets.highPPS[...])
    return sets
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSliceHeader(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let nalUnits = try? AnnexB.split(bytes[...]), !nalUnits.isEmpty else {
        parseSlice(bytes[...], with: x264Sets)
        return 0
    }
    var sets = x264Sets
    for nal in nalUnits {
        if (try? sets.update(nalUnit: nal)) == false {
            parseSlice(nal, with: sets)
        }
    }
    var count = 0
    for unit in H264.accessUnits(of: nalUnits) {
        count += unit.nalUnits.count
        _ = unit.isIDR
        _ = unit.qp
        _ = unit.nalUnitTypes
    }
    check(count == nalUnits.count, "access units hold \(count) of \(nalUnits.count) NAL units")
    return 0
}

/// Parses one slice header and reads what callers derive from it.
func parseSlice(_ nal: ArraySlice<UInt8>, with sets: H264.ParameterSets) {
    guard let header = try? H264.SliceHeader(nalUnit: nal, parameterSets: sets) else { return }
    check([1, 2, 5].contains(header.nalUnitType.rawValue), "slice header from nal_unit_type \(header.nalUnitType)")
    _ = header.sliceType
    _ = header.qp
    _ = header.idrPicFlag
}
