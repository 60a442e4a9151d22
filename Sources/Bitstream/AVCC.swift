// AVCC ("length-prefixed", ISO/IEC 14496-15 §5.3.2 sample format): each NAL unit preceded by its length as a
// big-endian unsigned integer of lengthSize = lengthSizeMinusOne + 1 bytes (1, 2 or 4 written; the reserved 3 is
// read too, as FFmpeg reads it), as stored in MP4 samples:
//
//   +--------------------+----------------+--------------------+----------------+--
//   | NALUnitLength (BE) | NAL unit       | NALUnitLength (BE) | NAL unit       | ...
//   | lengthSize bytes   | Length bytes   | lengthSize bytes   | Length bytes   |
//   +--------------------+----------------+--------------------+----------------+--

/// Reading and writing length-prefixed (AVCC / MP4 sample) NAL unit buffers.
///
/// Offsets in thrown errors count from the start of the slice given, whatever its `startIndex`, and point at the
/// length prefix of the NAL unit at fault.
public enum AVCC {
    /// Calls `body` with each NAL unit of `bytes`, in order, without allocating.
    ///
    /// Validation and visiting go together: `body` has seen every NAL unit before the first bad one when this throws.
    /// Empty input has no NAL units.
    /// - Throws: `.invalidLengthSize`, `.truncated` (a partial length prefix at the end), `.emptyNALUnit`
    ///   (a zero length), `.lengthPastEnd`, or what `body` throws.
    public static func forEachNALUnit(
        in bytes: ArraySlice<UInt8>, lengthSize: Int,
        _ body: (ArraySlice<UInt8>) throws(BitstreamError) -> Void
    ) throws(BitstreamError) {
        let base = bytes.startIndex
        try ByteLayer.withRaw(bytes) { raw throws(BitstreamError) in
            try walk(raw, lengthSize: lengthSize) { _, start, end throws(BitstreamError) in
                try body(bytes[(base + start)..<(base + end)])
            }
        }
    }

    /// The NAL units of `bytes` as slices of it (no copies).
    /// - Throws: as `forEachNALUnit`, and `.limitExceeded` past `AnnexB.maxNALUnitsPerAccessUnit`.
    public static func split(_ bytes: ArraySlice<UInt8>, lengthSize: Int) throws(BitstreamError) -> [ArraySlice<UInt8>] {
        var nalUnits: [ArraySlice<UInt8>] = []
        try forEachNALUnit(in: bytes, lengthSize: lengthSize) { nalUnit throws(BitstreamError) in
            guard nalUnits.count < AnnexB.maxNALUnitsPerAccessUnit else {
                throw BitstreamError(
                    code: .limitExceeded,
                    reason: "more than \(AnnexB.maxNALUnitsPerAccessUnit) NAL units (AnnexB.maxNALUnitsPerAccessUnit)",
                    offset: nalUnit.startIndex - bytes.startIndex - lengthSize
                )
            }
            nalUnits.append(nalUnit)
        }
        return nalUnits
    }

    /// Bytes `join` writes for `nalUnits`: `lengthSize` per NAL unit plus the NAL units.
    /// - Throws: `.invalidLengthSize`, `.emptyNALUnit`, `.nalUnitTooLarge` (longer than the prefix can say).
    public static func joinedSize<NALUnits: Collection>(
        _ nalUnits: NALUnits, lengthSize: Int
    ) throws(BitstreamError) -> Int where NALUnits.Element: Collection<UInt8> {
        try ByteLayer.checkLengthSize(lengthSize)
        let maxLength = ByteLayer.maxNALUnitLength(lengthSize: lengthSize)
        var size = 0
        for (index, nalUnit) in nalUnits.enumerated() {
            let length = nalUnit.count
            guard length > 0 else {
                throw .make(.emptyNALUnit, "NAL unit \(index) is empty; AVCC cannot carry a zero length", offset: size)
            }
            guard length <= maxLength else {
                throw .make(.nalUnitTooLarge,
                    "NAL unit \(index) has \(length) bytes, a \(lengthSize)-byte length holds at most \(maxLength)",
                    offset: size
                )
            }
            size += lengthSize + length
        }
        return size
    }

    /// Writes `nalUnits` length-prefixed into `output` and returns the number of bytes written.
    /// - Throws: as `joinedSize`, and `.outputTooSmall`; nothing is written when this throws.
    @discardableResult
    public static func join<NALUnits: Collection>(
        _ nalUnits: NALUnits, lengthSize: Int, into output: UnsafeMutableRawBufferPointer
    ) throws(BitstreamError) -> Int where NALUnits.Element: Collection<UInt8> {
        let needed = try joinedSize(nalUnits, lengthSize: lengthSize)
        guard needed <= output.count else { throw .outputTooSmall(needed: needed, available: output.count) }
        guard needed > 0, let out = output.baseAddress else { return 0 }
        var offset = 0
        for nalUnit in nalUnits {
            ByteLayer.writeLength(nalUnit.count, to: out, at: offset, lengthSize: lengthSize)
            ByteLayer.copy(nalUnit, to: out + offset + lengthSize)
            offset += lengthSize + nalUnit.count
        }
        return offset
    }

    /// `nalUnits` as a new length-prefixed buffer.
    /// - Throws: as `joinedSize`.
    public static func join<NALUnits: Collection>(
        _ nalUnits: NALUnits, lengthSize: Int
    ) throws(BitstreamError) -> [UInt8] where NALUnits.Element: Collection<UInt8> {
        let size = try joinedSize(nalUnits, lengthSize: lengthSize)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            // Cannot throw: the sizes were validated above and the buffer has exactly that many bytes.
            initialized = (try? join(nalUnits, lengthSize: lengthSize, into: UnsafeMutableRawBufferPointer(buffer))) ?? 0
        }
    }

    /// Validates the length prefixes of `raw` and calls `body(prefixStart, nalStart, nalEnd)` for each NAL unit,
    /// offsets relative to `raw`. The one loop every AVCC reader goes through.
    @inline(__always)
    static func walk(
        _ raw: UnsafeRawBufferPointer, lengthSize: Int,
        _ body: (_ prefixStart: Int, _ nalStart: Int, _ nalEnd: Int) throws(BitstreamError) -> Void
    ) throws(BitstreamError) {
        try ByteLayer.checkReadableLengthSize(lengthSize)
        let count = raw.count
        guard count > 0, let base = raw.baseAddress else { return }
        var offset = 0
        while offset < count {
            let remaining = count - offset
            guard remaining >= lengthSize else {
                throw .make(.truncated,
                    "\(remaining) bytes left for a \(lengthSize)-byte NAL unit length", offset: offset
                )
            }
            let length = ByteLayer.readLength(base, at: offset, lengthSize: lengthSize)
            guard length > 0 else { throw .make(.emptyNALUnit, "NAL unit length 0", offset: offset) }
            // remaining - lengthSize >= 0 here, and length < 2^32, so nothing overflows.
            guard length <= remaining - lengthSize else {
                throw .make(.lengthPastEnd,
                    "NAL unit length \(length) but \(remaining - lengthSize) bytes follow", offset: offset
                )
            }
            try body(offset, offset + lengthSize, offset + lengthSize + length)
            offset += lengthSize + length
        }
    }
}
