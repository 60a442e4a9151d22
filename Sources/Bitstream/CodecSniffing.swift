extension VideoCodec {
    /// The codec an Annex-B stream's first NAL unit speaks, or nil when its header reads plausibly as neither.
    ///
    /// A stream starts with parameter sets, a delimiter, SEI or a random-access slice. Read as H.265 (§7.3.1.2),
    /// such a first NAL unit has nuh_layer_id 0, nuh_temporal_id_plus1 1 and type VPS, SPS, PPS, AUD, prefix SEI
    /// or an IRAP slice (16…21). The first bytes H.264 streams start with all fail that test: 0x67/0x27/0x47 (SPS)
    /// read as type 51 or a layer id ≥ 32, 0x09 (AUD) and 0x65/0x25 (IDR) as layer ≥ 32, 0x06 (SEI) as type 3,
    /// 0x68 (PPS) as type 52. Conversely the H.265 first bytes (0x40, 0x42, 0x44, 0x46, 0x4E, 0x26, 0x28, 0x2A) read
    /// as H.264 NAL units no encoder puts first (types 0, 2, 4, 14, 10; SEI with nal_ref_idc ≠ 0).
    public static func sniff(firstNALUnit nalUnit: some Collection<UInt8>) -> VideoCodec? {
        var bytes = nalUnit.makeIterator()
        guard let first = bytes.next() else { return nil }
        if let second = bytes.next() {
            let header = HEVC.NALUnitHeader(first, second)
            let startTypes: ClosedRange<UInt8> = 16...21
            if !header.forbiddenZeroBit, header.nuhLayerId == 0, header.nuhTemporalIdPlus1 == 1,
               [32, 33, 34, 35, 39].contains(header.nalUnitType.rawValue) || startTypes.contains(header.nalUnitType.rawValue)
            {
                return .hevc
            }
        }
        let h264 = NALUnitHeader(first)
        guard !h264.forbiddenZeroBit else { return nil }
        switch h264.nalUnitType.rawValue {
        case 1, 5, 7, 8: return .h264
        case 6, 9: return h264.nalRefIdc == 0 ? .h264 : nil  // SEI and AUD are never reference data (§7.4.1)
        default: return nil
        }
    }
}
