// AVCC (length-prefixed) split and the AVCC → Annex-B conversions. The first input byte picks the length size
// (its low two bits + 1, so 3 — which the standard reserves but FFmpeg reads, and so does rtenc — is tried too) and
// whether an avcC record's parameter sets are inserted in front of an IDR slice; the rest is the sample.
//
// Properties: split → join gives back the input byte for byte (lengths are canonical; 3-byte lengths are read but
// never written, so those go through 4-byte lengths and back); the allocation-free reader
// agrees with split; toAnnexB writes exactly annexBSize bytes, and in place (4-byte lengths) the same as copying.
import Bitstream
import FuzzSupport

/// x264's High SPS and PPS in an avcC, for the parameter-set insertion path (constant bytes, so `try!` cannot trap
/// on fuzz input).
let record = try! AVCDecoderConfigurationRecord(parsing: X264ParameterSets.highRecord[...])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAVCC(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let control = bytes.first else { return 0 }
    let lengthSize = Int(control & 0x03) + 1
    let parameterSets = control & 0x04 != 0 ? record : nil
    let sample = bytes.dropFirst()

    guard let nalUnits = try? AVCC.split(sample, lengthSize: lengthSize) else {
        check((try? AVCC.annexBSize(sample, lengthSize: lengthSize)) == nil || sample.count > 4096,
            "annexBSize accepted what split refused")
        return 0
    }
    var visited: [ArraySlice<UInt8>] = []
    try? AVCC.forEachNALUnit(in: sample, lengthSize: lengthSize) { visited.append($0) }
    check(visited == nalUnits, "forEachNALUnit and split disagree")
    if lengthSize == 3 {
        check((try? AVCC.join(nalUnits, lengthSize: 3)) == nil, "a 3-byte length size was written")
        let rejoined = try? AVCC.join(nalUnits, lengthSize: 4)
        let again = rejoined.flatMap { try? AVCC.split($0[...], lengthSize: 4) }
        check(again?.map(Array.init) == nalUnits.map(Array.init), "split → join (4-byte lengths) → split changed them")
    } else {
        check((try? AVCC.join(nalUnits, lengthSize: lengthSize))?[...] == sample, "split → join changed the bytes")
    }

    guard let annexB = try? AVCC.toAnnexB(sample, lengthSize: lengthSize, parameterSets: parameterSets) else {
        check(false, "toAnnexB refused a sample split accepted")
        return 0
    }
    check(annexB.count == (try? AVCC.annexBSize(sample, lengthSize: lengthSize, parameterSets: parameterSets)),
        "toAnnexB wrote other than annexBSize bytes")
    if lengthSize == 4, parameterSets == nil {
        var inPlace = Array(sample)
        try? AVCC.toAnnexBInPlace(&inPlace)
        check(inPlace == annexB, "in-place and copying toAnnexB differ")
    }
    return 0
}
