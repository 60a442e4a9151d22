import Bitstream

/// The picture type (IDR, I, P, B) of encoded access units, read from their slice headers — not taken from the
/// encoder's word. Keeps the SPS/PPS seen so far, as a decoder would.
struct PictureTypeReader {
    private var splitter = H264.AccessUnitSplitter()

    /// "IDR", "I", "P", "B" (SP and SI as "P" and "I"), or "?" when no slice header could be read.
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
