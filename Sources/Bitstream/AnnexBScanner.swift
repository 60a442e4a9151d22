// The start-code scan behind every Annex-B reader (H.264 Annex B.1, byte stream NAL unit syntax):
//
//   byte_stream_nal_unit( ) {
//     while (next_bits(24) != 0x000001 && next_bits(32) != 0x00000001)
//       leading_zero_8bits                  /* 0x00, only before the first NAL unit */
//     if (next_bits(24) != 0x000001)
//       zero_byte                           /* 0x00: the fourth byte of a 4-byte start code */
//     start_code_prefix_one_3bytes          /* 0x000001 */
//     nal_unit( NumBytesInNALunit )
//     while (more_data_in_byte_stream() && next_bits(24) != 0x000001 && next_bits(32) != 0x00000001)
//       trailing_zero_8bits                 /* 0x00 */
//   }
//
// Inside a NAL unit the three-byte sequences 00 00 00, 00 00 01 and 00 00 02 cannot occur (emulation prevention,
// §7.4.1), and a NAL unit never ends in 0x00 (a trailing cabac_zero_word gets a 0x03 appended). So every 00 00 01 is
// a start code, and the zero bytes just before it (zero_byte, trailing_zero_8bits) belong to no NAL unit.
// 00 00 03 emulation prevention sequences are NAL unit payload and pass through untouched.

enum AnnexBScanner {
    /// Offset of the first byte of the next `00 00 01` at or after `from`, or nil.
    ///
    /// memchr finds candidate 0x01 bytes; compressed slice data holds about one per 256 bytes, so the check of
    /// the two bytes before each candidate costs little next to the vectorised search.
    @inline(__always)
    static func findStartCode(_ base: UnsafeRawPointer, from: Int, count: Int) -> Int? {
        var i = from + 2
        while let one = ByteLayer.find(0x01, in: base, from: i, count: count) {
            if base.load(fromByteOffset: one - 1, as: UInt8.self) == 0,
               base.load(fromByteOffset: one - 2, as: UInt8.self) == 0 {
                return one - 2
            }
            i = one + 1
        }
        return nil
    }

    /// Calls `body(gapStart, nalStart, nalEnd)` for each NAL unit of `raw`, in order. `gapStart..<nalStart` is the
    /// run of zero bytes and start code in front of the NAL unit (leading or trailing zeros, zero_byte, the
    /// 3-byte prefix); `nalStart..<nalEnd` is the NAL unit. Offsets are relative to `raw`.
    ///
    /// - Throws: `.missingStartCode` for non-zero bytes before the first start code or no start code at all in a
    ///   non-empty buffer; `.emptyNALUnit` for a start code followed by nothing but zeros or another start code.
    ///   Errors raised by `body` pass through. Empty input calls `body` zero times.
    @inline(__always)
    static func scan(
        _ raw: UnsafeRawBufferPointer,
        _ body: (_ gapStart: Int, _ nalStart: Int, _ nalEnd: Int) throws(BitstreamError) -> Void
    ) throws(BitstreamError) {
        let count = raw.count
        guard count > 0, let base = raw.baseAddress else { return }
        guard let first = findStartCode(base, from: 0, count: count) else {
            throw .make(.missingStartCode, "no start code in \(count) bytes of Annex-B data", offset: 0)
        }
        // Only leading_zero_8bits / zero_byte may precede the first start code.
        for offset in 0..<first where base.load(fromByteOffset: offset, as: UInt8.self) != 0 {
            throw .make(.missingStartCode, "data before the first start code", offset: offset)
        }
        var gapStart = 0
        var nalStart = first + 3
        while true {
            let next = findStartCode(base, from: nalStart, count: count)
            var nalEnd = next ?? count
            while nalEnd > nalStart, base.load(fromByteOffset: nalEnd - 1, as: UInt8.self) == 0 {
                nalEnd -= 1
            }
            guard nalEnd > nalStart else {
                throw .make(.emptyNALUnit, "start code followed by no NAL unit", offset: nalStart)
            }
            try body(gapStart, nalStart, nalEnd)
            guard let next else { return }
            gapStart = nalEnd
            nalStart = next + 3
        }
    }
}
