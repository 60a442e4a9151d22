// Annex-B split and the conversions built on the same scanner, fed the whole input as a byte stream.
//
// Properties: the three readers (split, nalUnitRanges, forEachNALUnit) agree; split → join → split gives the same NAL
// units (a scanned NAL unit never holds 00 00 01 nor ends in 0x00, so re-framing cannot change it); Annex-B → AVCC
// gives the same NAL units for every length size, and in place where it is allowed; the access-unit splitter keeps
// every NAL unit, in order.
import Bitstream
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAnnexB(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let nalUnits: [ArraySlice<UInt8>]
    do {
        nalUnits = try AnnexB.split(bytes[...])
    } catch {
        // Past the NAL unit count bound only split refuses; any other fault every reader refuses.
        guard error.code != .limitExceeded else { return 0 }
        check((try? AnnexB.forEachNALUnit(in: bytes[...]) { _ in }) == nil, "forEachNALUnit accepted what split refused")
        check((try? AnnexB.toAVCC(bytes[...], lengthSize: 4)) == nil, "toAVCC accepted what split refused")
        return 0
    }
    check(nalUnits.allSatisfy { !$0.isEmpty && $0.last != 0 }, "split returned an empty or zero-terminated NAL unit")

    var visited: [ArraySlice<UInt8>] = []
    try? AnnexB.forEachNALUnit(in: bytes[...]) { visited.append($0) }
    check(visited == nalUnits, "forEachNALUnit and split disagree")

    let rejoined = AnnexB.join(nalUnits)
    check(rejoined.count == AnnexB.joinedSize(nalUnits), "join wrote other than joinedSize bytes")
    check((try? AnnexB.split(rejoined[...])) == nalUnits, "split → join → split changed the NAL units")

    for lengthSize in [1, 2, 4] {
        let fits = nalUnits.allSatisfy { $0.count < 1 << (8 * lengthSize) }
        guard let avcc = try? AnnexB.toAVCC(bytes[...], lengthSize: lengthSize) else {
            check(!fits, "toAVCC refused NAL units that fit \(lengthSize)-byte lengths")
            continue
        }
        check(fits, "toAVCC accepted a NAL unit too long for \(lengthSize)-byte lengths")
        check((try? AVCC.split(avcc[...], lengthSize: lengthSize)) == nalUnits, "Annex-B → AVCC changed the NAL units")
    }

    var inPlace = bytes
    if (try? AnnexB.toAVCCInPlace(&inPlace)) != nil {
        check(inPlace == (try? AnnexB.toAVCC(bytes[...], lengthSize: 4)), "in-place and copying toAVCC differ")
    } else {
        check(inPlace == bytes, "a refused in-place conversion changed the buffer")
    }

    var splitter = H264.AccessUnitSplitter()
    var grouped: [ArraySlice<UInt8>] = []
    for nal in nalUnits {
        if let unit = splitter.append(nal) { grouped += unit.nalUnits }
    }
    if let last = splitter.flush() { grouped += last.nalUnits }
    check(grouped == nalUnits, "the access-unit splitter lost or reordered NAL units")
    return 0
}
