import Bitstream

/// The picture type (IDR, I, P, B) of encoded access units, read from their slice headers — not taken from the
/// encoder's word. Keeps the SPS/PPS seen so far, as a decoder would.
struct PictureTypeReader {
    let codec: VideoCodec
    private var splitter = H264.AccessUnitSplitter()
    private var hevcParameterSets = HEVC.ParameterSets()

    init(codec: VideoCodec = .h264) {
        self.codec = codec
    }

    /// The type of an access unit the session delivered (its NAL units already found).
    mutating func pictureType(_ accessUnit: CodedAccessUnit) -> String {
        switch accessUnit.codec {
        case .h264: pictureType(annexB: accessUnit.bytes)
        case .hevc: hevcPictureType(accessUnit)
        }
    }

    /// H.265: "IDR" for IDR_W_RADL/IDR_N_LP, else the first slice segment's slice_type ("I", "P", "B"); "?" when
    /// no slice segment header could be read.
    private mutating func hevcPictureType(_ accessUnit: CodedAccessUnit) -> String {
        var type = "?"
        for unit in accessUnit.nalUnits {
            let nalUnit = accessUnit.bytes[unit.range]
            let nalUnitType = HEVC.NALUnitType(rawValue: unit.type)
            if nalUnitType.isParameterSet {
                _ = try? hevcParameterSets.update(nalUnit: nalUnit)
            } else if nalUnitType.isVCL, type == "?" {
                if nalUnitType.isIDR { return "IDR" }
                type = (try? HEVC.SliceSegmentHeader(nalUnit: nalUnit, parameterSets: hevcParameterSets))?
                    .sliceType?.name ?? "?"
            }
        }
        return type
    }

    /// H.264: "IDR", "I", "P", "B" (SP and SI as "P" and "I"), or "?" when no slice header could be read.
    mutating func pictureType(annexB bytes: [UInt8]) -> String {
        var unit: H264.AccessUnit?
        try? AnnexB.forEachNALUnit(in: bytes[...]) { nal in
            if let completed = splitter.append(nal) { unit = completed }
        }
        if let flushed = splitter.flush() { unit = flushed }
        guard let unit else { return "?" }
        if unit.isIDR { return "IDR" }
        switch unit.primarySliceType {
        case .i?, .si?: return "I"
        case .p?, .sp?: return "P"
        case .b?: return "B"
        case nil: return "?"
        }
    }
}
