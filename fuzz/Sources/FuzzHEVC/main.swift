// The H.265 parsers: the whole input is one NAL unit (2-byte header first) tried as VPS, SPS, PPS and slice segment
// header (against x265's parameter sets, and against the input itself when it parses as an SPS), then as an hvcC
// record, then as an Annex-B stream through the access-unit splitter and, with the x265 hvcC, through the
// length-prefixed → Annex-B conversion. Every derived value of a parsed SPS is computed: overflow there would trap.
import Bitstream
import FuzzSupport

/// x265 3.5's VPS, SPS and PPS for 320x240 Main (BitstreamTests' `HEVCFixtures.x265Main320x240`).
let x265VPS: [UInt8] = [
    0x40, 0x01, 0x0C, 0x01, 0xFF, 0xFF, 0x01, 0x60, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03,
    0x00, 0x3C, 0x95, 0x98, 0x09,
]
let x265SPS: [UInt8] = [
    0x42, 0x01, 0x01, 0x01, 0x60, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x3C, 0xA0,
    0x0A, 0x08, 0x0F, 0x16, 0x59, 0x59, 0xA4, 0x93, 0x2B, 0xC0, 0x5A, 0x02, 0x00, 0x00, 0x03, 0x00, 0x02, 0x00, 0x00,
    0x03, 0x00, 0x3C, 0x10,
]
let x265PPS: [UInt8] = [0x44, 0x01, 0xC1, 0x72, 0xB4, 0x62, 0x40]

let x265Sets: HEVC.ParameterSets = {
    var sets = HEVC.ParameterSets()
    // Constant bytes: a failure here is a bug in the parser, found on the first run.
    for nal in [x265VPS, x265SPS, x265PPS] { _ = try? sets.update(nalUnit: nal[...]) }
    return sets
}()
let x265Record = try? HEVC.DecoderConfigurationRecord(nalUnits: [x265VPS, x265SPS, x265PPS])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEVC(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let nalUnit = bytes[...]
    var sets = x265Sets
    if let vps = try? HEVC.VideoParameterSet(nalUnit: nalUnit) {
        check(vps.vpsMaxSubLayersMinus1 <= 6, "vps_max_sub_layers_minus1 \(vps.vpsMaxSubLayersMinus1)")
        _ = vps.fps
    }
    if let sps = try? HEVC.SequenceParameterSet(nalUnit: nalUnit) {
        check(sps.picWidthInLumaSamples <= HEVC.SequenceParameterSet.maxPicSideInLumaSamples, "width")
        check(sps.width > 0 && sps.height > 0, "output size \(sps.width)x\(sps.height)")
        check(sps.subLayerOrderingInfo.count == sps.spsMaxSubLayersMinus1 + 1, "sub-layer ordering")
        var sink = sps.picSizeInCtbsY &+ sps.ctbSizeY &+ sps.minCbSizeY &+ sps.qpBdOffsetY &+ sps.maxDecPicBuffering
        sink = sink &+ sps.chromaArrayType &+ Int(sps.fps ?? 0) &+ (sps.level?.rawValue ?? 0)
        _ = sps.profile
        if sink == 0x5EED_F00D { print("") }
        sets.sequenceParameterSets[sps.spsSeqParameterSetId] = sps
    }
    if let pps = try? HEVC.PictureParameterSet(nalUnit: nalUnit) {
        check((0...63).contains(pps.ppsPicParameterSetId), "pps_pic_parameter_set_id \(pps.ppsPicParameterSetId)")
    }
    for parameterSets in [x265Sets, sets] {
        if let header = try? HEVC.SliceSegmentHeader(nalUnit: nalUnit, parameterSets: parameterSets) {
            check(header.sliceQpY.map { (-48...51).contains($0) } ?? true, "SliceQpY \(String(describing: header.sliceQpY))")
        }
    }
    if let record = try? HEVC.DecoderConfigurationRecord(parsing: nalUnit) {
        check(record.serializedSize == record.serialized().count, "hvcC size")
    }
    if let nalUnits = try? AnnexB.split(nalUnit) {
        let units = HEVC.accessUnits(of: nalUnits)
        check(units.reduce(0) { $0 + $1.nalUnits.count } == nalUnits.count, "access units lose NAL units")
    }
    if let record = x265Record, let annexB = try? AVCC.toAnnexB(nalUnit, lengthSize: 4, parameterSets: record) {
        check(annexB.count == (try? AVCC.annexBSize(nalUnit, lengthSize: 4, parameterSets: record)), "Annex-B size")
    }
    return 0
}
