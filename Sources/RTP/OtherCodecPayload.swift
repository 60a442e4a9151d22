/// Recognises RFC 7798 (H.265) payloads arriving at a receiver configured for RFC 6184 (H.264), the mistake of a
/// `receive` that was not told the codec. Only what cannot be H.264 counts, so a real H.264 stream never trips it.
///
/// The HEVC NAL unit header (§7.3.1.2) of a VPS, SPS or PPS (types 32, 33, 34) or of an aggregation packet (48)
/// with nuh_layer_id 0 starts with 0x40, 0x42, 0x44 or 0x60. Read as H.264's one-byte header those are nal_unit_type
/// 0 (undefined: RFC 6184 §5.2 payloads the H.264 depacketizer refuses), 2 or 4 (slice data partitions A and C:
/// Extended profile only, which no RTP sender uses) — so the first condition is "fails as H.264". The second is
/// that the payload then parses as RFC 7798 and begins a VPS, SPS or PPS: exactly what an H.265 sender puts first
/// and repeats before every IRAP picture.
public enum OtherCodecPayload {
    /// Whether `payload`, received as H.264, is an H.265 payload carrying a parameter set.
    public static func isHEVCParameterSets(receivedAsH264 payload: ArraySlice<UInt8>) -> Bool {
        guard payload.count >= 3, let first = payload.first, let second = payload.dropFirst().first,
              [0, 2, 4].contains(first & 0x1F),
              first & 0x01 == 0, second & 0xF8 == 0, second & 0x07 != 0,  // nuh_layer_id 0, nuh_temporal_id_plus1 ≥ 1
              let content = try? H265PayloadFormat.content(of: payload)
        else { return false }
        return content.startingNALUnitTypes(.hevc).contains { (32...34).contains($0) }
    }
}
