/// Reads bits, most significant first, from an RBSP (emulation prevention already removed).
///
/// Every read past the end throws `.truncated` with the byte offset and, in the reason, the bit offset; nothing
/// here traps on input data. Exp-Golomb codes with more than 32 leading zero bits throw `.expGolombTooLong`
/// (H.264 §9.1 limits codeNum to 32 bits).
public struct BitReader: Sendable {
    public let bytes: [UInt8]
    /// Position of the next bit to read, counted from the first bit of `bytes`.
    public private(set) var bitOffset: Int = 0

    /// Bits that may be read: all of `bytes`, or fewer for a reader bounded at the rbsp_stop_one_bit.
    public let bitCount: Int

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        bitCount = bytes.count * 8
    }

    /// A reader of the first `bitCount` bits of `bytes` (clamped to 0…bytes.count · 8): reads past them throw
    /// `.truncated`, as FFmpeg's reader bounded at the stop bit does (`get_bit_length`).
    public init(_ bytes: [UInt8], bitCount: Int) {
        self.bytes = bytes
        self.bitCount = Swift.min(Swift.max(bitCount, 0), bytes.count * 8)
    }
    public var bitsLeft: Int { bitCount - bitOffset }
    public var isByteAligned: Bool { bitOffset % 8 == 0 }

    private func truncated(_ what: String, needing count: Int) -> BitstreamError {
        .make(.truncated,
            "\(what): needs \(count) bit(s) at bit \(bitOffset), \(bitsLeft) left", offset: bitOffset / 8)
    }

    /// u(1) as a Bool.
    public mutating func readFlag() throws(BitstreamError) -> Bool {
        guard bitOffset < bitCount else { throw truncated("u(1)", needing: 1) }
        let bit = bytes[bitOffset >> 3] >> (7 - UInt8(bitOffset & 7)) & 1
        bitOffset += 1
        return bit == 1
    }

    /// u(n) for n in 0…64.
    public mutating func readBits64(_ count: Int) throws(BitstreamError) -> UInt64 {
        guard (0...64).contains(count) else {
            throw .make(.invalidValue, "cannot read \(count) bits at once", offset: bitOffset / 8)
        }
        guard count <= bitsLeft else { throw truncated("u(\(count))", needing: count) }
        var value: UInt64 = 0
        var remaining = count
        while remaining > 0 {
            let byte = UInt64(bytes[bitOffset >> 3])
            let bitInByte = bitOffset & 7
            let take = Swift.min(8 - bitInByte, remaining)
            // `take` ≤ 8 − bitInByte, so the shift keeps only the bits of this byte still unread.
            let chunk = (byte >> UInt64(8 - bitInByte - take)) & ((1 << UInt64(take)) - 1)
            value = (value << UInt64(take)) | chunk
            remaining -= take
            bitOffset += take
        }
        return value
    }

    /// u(n) for n in 0…32.
    public mutating func readBits(_ count: Int) throws(BitstreamError) -> UInt32 {
        guard count <= 32 else {
            throw .make(.invalidValue, "cannot read \(count) bits into 32", offset: bitOffset / 8)
        }
        return UInt32(truncatingIfNeeded: try readBits64(count))
    }

    public mutating func skipBits(_ count: Int) throws(BitstreamError) {
        guard count >= 0, count <= bitsLeft else { throw truncated("skip", needing: count) }
        bitOffset += count
    }

    /// ue(v) (§9.1): leadingZeroBits zeros, a one, then leadingZeroBits more bits.
    public mutating func readUE() throws(BitstreamError) -> UInt32 {
        let start = bitOffset
        var leadingZeroBits = 0
        while try !readFlag() {
            leadingZeroBits += 1
            if leadingZeroBits > 32 {
                throw BitstreamError(
                    code: .expGolombTooLong,
                    reason: "Exp-Golomb code at bit \(start) has more than 32 leading zero bits", offset: start / 8)
            }
        }
        // codeNum = 2^leadingZeroBits − 1 + bits; with 32 zeros it only fits 32 bits when the suffix is 0.
        let codeNum = (UInt64(1) << UInt64(leadingZeroBits)) - 1 + (try readBits64(leadingZeroBits))
        guard let value = UInt32(exactly: codeNum) else {
            throw BitstreamError(
                code: .expGolombTooLong, reason: "Exp-Golomb code at bit \(start) exceeds 32 bits", offset: start / 8)
        }
        return value
    }

    /// se(v) (§9.1.1): codeNum k maps to (−1)^(k+1) · Ceil(k ÷ 2).
    public mutating func readSE() throws(BitstreamError) -> Int32 {
        let codeNum = Int64(try readUE())
        let magnitude = (codeNum + 1) / 2
        let value = codeNum & 1 == 1 ? magnitude : -magnitude
        guard let result = Int32(exactly: value) else {
            throw BitstreamError(code: .expGolombTooLong, reason: "se(v) \(value) exceeds 32 bits", offset: bitOffset / 8)
        }
        return result
    }

    /// ue(v) checked against the range the specification allows for `name`.
    public mutating func readUE(_ name: String, max: Int) throws(BitstreamError) -> Int {
        let start = bitOffset
        let value = Int(try readUE())
        guard value <= max else {
            throw .make(.invalidValue, "\(name) = \(value) exceeds \(max)", offset: start / 8)
        }
        return value
    }

    /// ue(v) whose range the specification limits but on which nothing the decoder derives depends: a value above
    /// `max` is kept and reported in `warnings` (FFmpeg reads these without a check), never thrown.
    public mutating func readUE(
        _ name: String, max: Int, orWarnInto warnings: inout [BitstreamWarning]
    ) throws(BitstreamError) -> Int {
        let start = bitOffset
        let value = Int(try readUE())
        if value > max {
            warnings.append(BitstreamWarning(
                code: .outOfRange, syntaxElement: name, reason: "\(value) exceeds \(max), kept", offset: start / 8))
        }
        return value
    }

    /// se(v) like `readUE(_:max:orWarnInto:)`: a value outside `range` is kept and reported in `warnings`.
    public mutating func readSE(
        _ name: String, in range: ClosedRange<Int>, orWarnInto warnings: inout [BitstreamWarning]
    ) throws(BitstreamError) -> Int {
        let start = bitOffset
        let value = Int(try readSE())
        if !range.contains(value) {
            warnings.append(BitstreamWarning(
                code: .outOfRange, syntaxElement: name, reason: "\(value) outside \(range), kept", offset: start / 8))
        }
        return value
    }

    /// se(v) checked against the range the specification allows for `name`.
    public mutating func readSE(_ name: String, in range: ClosedRange<Int>) throws(BitstreamError) -> Int {
        let start = bitOffset
        let value = Int(try readSE())
        guard range.contains(value) else {
            throw .make(.invalidValue, "\(name) = \(value) outside \(range)", offset: start / 8)
        }
        return value
    }

    /// more_rbsp_data() (§7.2): true while there is data before the rbsp_stop_one_bit, the last 1 bit of the RBSP.
    public func moreRBSPData() -> Bool {
        guard let lastNonZero = bytes.lastIndex(where: { $0 != 0 }) else { return false }
        let stopBit = lastNonZero * 8 + 7 - bytes[lastNonZero].trailingZeroBitCount
        return bitOffset < stopBit
    }

    /// rbsp_trailing_bits() (§7.3.2.11): a one, zeros to the byte boundary, then nothing but zero bytes
    /// (cabac_zero_words). Anything else is `.trailingData`.
    public mutating func readTrailingBits() throws(BitstreamError) {
        let start = bitOffset
        guard try readFlag() else {
            throw BitstreamError(
                code: .trailingData, reason: "rbsp_stop_one_bit at bit \(start) is 0", offset: start / 8)
        }
        while !isByteAligned {
            if try readFlag() {
                throw BitstreamError(
                    code: .trailingData, reason: "rbsp_alignment_zero_bit at bit \(bitOffset - 1) is 1",
                    offset: bitOffset / 8)
            }
        }
        if let extra = bytes[(bitOffset / 8)...].firstIndex(where: { $0 != 0 }) {
            throw BitstreamError(
                code: .trailingData, reason: "data after rbsp_trailing_bits at byte \(extra)", offset: extra)
        }
        bitOffset = bitCount
    }
}
