/// Writes bits, most significant first, into an RBSP. The mirror of `BitReader`, used to build parameter sets and
/// test vectors; `RBSP.addingEmulationPrevention` then turns the result into a NAL payload.
public struct BitWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    public private(set) var bitCount: Int = 0

    public init() {}

    public var isByteAligned: Bool { bitCount % 8 == 0 }

    public mutating func writeFlag(_ flag: Bool) {
        writeBits(flag ? 1 : 0, count: 1)
    }

    /// u(n): the low `count` bits of `value` (count in 0…64; higher bits of `value` are ignored).
    public mutating func writeBits(_ value: UInt64, count: Int) {
        precondition((0...64).contains(count), "BitWriter.writeBits count \(count) out of 0…64")
        var remaining = count
        while remaining > 0 {
            if bitCount % 8 == 0 { bytes.append(0) }
            let free = 8 - bitCount % 8
            let take = Swift.min(free, remaining)
            let chunk = UInt8(truncatingIfNeeded: (value >> UInt64(remaining - take)) & ((1 << UInt64(take)) - 1))
            bytes[bytes.count - 1] |= chunk << UInt8(free - take)
            remaining -= take
            bitCount += take
        }
    }

    public mutating func writeBits(_ value: Int, count: Int) {
        writeBits(UInt64(truncatingIfNeeded: value), count: count)
    }

    /// ue(v) (§9.1) for values 0…2^32−1.
    public mutating func writeUE(_ value: UInt32) {
        let codeNumPlus1 = UInt64(value) + 1
        let length = 64 - codeNumPlus1.leadingZeroBitCount  // bits of codeNum + 1
        writeBits(0, count: length - 1)
        writeBits(codeNumPlus1, count: length)
    }

    public mutating func writeUE(_ value: Int) {
        writeUE(UInt32(truncatingIfNeeded: value))
    }

    /// se(v) (§9.1.1): positive v → 2v − 1, non-positive v → −2v.
    public mutating func writeSE(_ value: Int) {
        let codeNum = value > 0 ? 2 * Int64(value) - 1 : -2 * Int64(value)
        writeUE(UInt32(truncatingIfNeeded: codeNum))
    }

    /// rbsp_trailing_bits(): the stop bit and zero bits to the byte boundary.
    public mutating func writeTrailingBits() {
        writeFlag(true)
        while !isByteAligned { writeFlag(false) }
    }
}
