import Bitstream

/// The picture type (IDR, I, P, B) of encoded access units, read from their slice headers — not taken from the
/// encoder's word. Keeps the SPS/PPS seen so far, as a decoder would.
struct PictureTypeReader {
    let codec: VideoCodec
    private var splitter = H264.AccessUnitSplitter()

    init(codec: VideoCodec = .h264) {
        self.codec = codec
    }

    /// The type of an access unit the session delivered (its NAL units already found).
    mutating func pictureType(_ accessUnit: CodedAccessUnit) -> String {
        switch accessUnit.codec {
        case .h264: pictureType(annexB: accessUnit.bytes)
        case .hevc: Self.hevcPictureType(nalUnitTypes: accessUnit.nalUnits.map(\.type))
        }
    }

    /// H.265, from the NAL unit types (Table 7-1): "IDR" for IDR_W_RADL/IDR_N_LP, "I" for the other IRAP pictures
    /// (CRA, BLA: intra by definition), "?" for the rest — P or B is slice_type in the slice segment header, which
    /// the Bitstream module does not parse yet.
    static func hevcPictureType(nalUnitTypes: [UInt8]) -> String {
        let vcl = nalUnitTypes.map(HEVC.NALUnitType.init(rawValue:)).filter(\.isVCL)
        if vcl.contains(where: \.isIDR) { return "IDR" }
        if vcl.contains(where: \.isIRAP) { return "I" }
        return "?"
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
