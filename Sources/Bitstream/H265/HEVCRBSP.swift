extension HEVC {
    /// Splits a whole H.265 NAL unit into its two-byte header (§7.3.1.2) and its RBSP (emulation prevention removed,
    /// §7.4.2; the rule is H.264's, see `RBSP`).
    ///
    /// - Parameter limit: stop after this many RBSP bytes (a slice header needs only the front of a slice).
    /// - Throws: `.emptyNALUnit` / `.truncated` for fewer than two bytes; `.invalidValue` for forbidden_zero_bit 1.
    public static func split(nalUnit: ArraySlice<UInt8>, limit: Int = .max) throws(BitstreamError) -> (
        header: NALUnitHeader, rbsp: [UInt8]
    ) {
        guard !nalUnit.isEmpty else {
            throw BitstreamError(code: .emptyNALUnit, reason: "NAL unit has no header", offset: 0)
        }
        guard let header = NALUnitHeader(nalUnit) else {
            throw .make(.truncated, "H.265 NAL unit of 1 byte: the header has 2", offset: 0)
        }
        if header.forbiddenZeroBit {
            throw .make(.invalidValue, "forbidden_zero_bit is 1", offset: 0)
        }
        return (header, RBSP.removingEmulationPrevention(nalUnit.dropFirst(2), limit: limit))
    }

    /// `split` for a parameter set: checks the type, and bounds the reader at the rbsp_stop_one_bit as FFmpeg does.
    static func parameterSetReader(
        _ nalUnit: ArraySlice<UInt8>, expecting type: NALUnitType, name: String
    ) throws(BitstreamError) -> (header: NALUnitHeader, reader: BitReader) {
        let (header, rbsp) = try split(nalUnit: nalUnit)
        guard header.nalUnitType == type else {
            throw .make(.invalidValue,
                "expected nal_unit_type \(type.rawValue) (\(type)), got \(header.nalUnitType.rawValue)", offset: 0)
        }
        guard let stopBit = RBSP.stopBitOffset(rbsp) else {
            throw .make(.truncated, "\(name) has no rbsp_stop_one_bit (\(rbsp.count) RBSP byte(s), all zero)", offset: 2)
        }
        return (header, BitReader(rbsp, bitCount: stopBit))
    }

    /// The `trailingData` warning for bits left between the last syntax element and the rbsp_stop_one_bit.
    static func trailingBitsWarning(_ reader: BitReader) -> BitstreamWarning? {
        guard reader.bitsLeft > 0 else { return nil }
        return BitstreamWarning(
            code: .trailingData, syntaxElement: "rbsp_trailing_bits",
            reason: "\(reader.bitsLeft) bit(s) between the last syntax element and the rbsp_stop_one_bit, ignored",
            offset: reader.bitOffset / 8)
    }
}

extension BitReader {
    /// Ceil(Log2(n)) bits, the width of the u(v) fields that index n things (0 for n ≤ 1).
    static func ceilLog2(_ n: Int) -> Int {
        n <= 1 ? 0 : Int.bitWidth - (n - 1).leadingZeroBitCount
    }
}
