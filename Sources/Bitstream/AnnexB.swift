// Annex-B byte streams (H.264 Annex B): NAL units each preceded by a start code.
// Reading hands out slices of the caller's bytes (no copies); writing uses 4-byte start codes (zero_byte +
// start_code_prefix_one_3bytes), which B.1.2 requires in front of SPS, PPS and the first NAL unit of an access
// unit and which is harmless everywhere else.

/// Reading and writing H.264 Annex-B byte streams.
///
/// Offsets in thrown errors count from the start of the slice given, whatever its `startIndex`. Returned slices and
/// ranges use the indices of the caller's collection, as `ArraySlice` always does.
public enum AnnexB {
    /// The start code written in front of every NAL unit.
    public static let startCode: [UInt8] = [0x00, 0x00, 0x00, 0x01]

    /// Most NAL units `split` and `nalUnitRanges` return from one buffer. An access unit of a real encoder holds a
    /// few dozen (x264 with sliced threads: AUD, SPS, PPS, SEI and one slice per thread); 4096 leaves room for one
    /// slice per macroblock row at 8K while keeping hostile input from turning every 4 bytes into an array entry.
    /// `forEachNALUnit` allocates nothing and has no such bound.
    public static let maxNALUnitsPerAccessUnit = 4096

    /// Calls `body` with each NAL unit of `bytes`, in order, without allocating.
    ///
    /// Zero bytes before the first start code (leading_zero_8bits) and after a NAL unit (trailing_zero_8bits) are
    /// skipped. Empty input has no NAL units.
    /// - Throws: `.missingStartCode` (non-zero data before the first start code), `.emptyNALUnit`, or what `body`
    ///   throws.
    public static func forEachNALUnit(
        in bytes: ArraySlice<UInt8>,
        _ body: (ArraySlice<UInt8>) throws(BitstreamError) -> Void
    ) throws(BitstreamError) {
        let base = bytes.startIndex
        try ByteLayer.withRaw(bytes) { raw throws(BitstreamError) in
            try AnnexBScanner.scan(raw) { _, start, end throws(BitstreamError) in
                try body(bytes[(base + start)..<(base + end)])
            }
        }
    }

    /// The index ranges of the NAL units of `bytes`, in `bytes`' own indices.
    /// - Throws: as `forEachNALUnit`, and `.limitExceeded` past `maxNALUnitsPerAccessUnit`.
    public static func nalUnitRanges(in bytes: ArraySlice<UInt8>) throws(BitstreamError) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        let base = bytes.startIndex
        try ByteLayer.withRaw(bytes) { raw throws(BitstreamError) in
            try AnnexBScanner.scan(raw) { _, start, end throws(BitstreamError) in
                guard ranges.count < maxNALUnitsPerAccessUnit else {
                    throw BitstreamError(
                        code: .limitExceeded,
                        reason: "more than \(maxNALUnitsPerAccessUnit) NAL units (AnnexB.maxNALUnitsPerAccessUnit)",
                        offset: start
                    )
                }
                ranges.append((base + start)..<(base + end))
            }
        }
        return ranges
    }

    /// The NAL units of `bytes` as slices of it (no copies).
    /// - Throws: as `nalUnitRanges(in:)`.
    public static func split(_ bytes: ArraySlice<UInt8>) throws(BitstreamError) -> [ArraySlice<UInt8>] {
        try nalUnitRanges(in: bytes).map { bytes[$0] }
    }

    /// Bytes `join` writes for `nalUnits`: four per start code plus the NAL units.
    public static func joinedSize<NALUnits: Collection>(_ nalUnits: NALUnits) -> Int
    where NALUnits.Element: Collection<UInt8> {
        nalUnits.reduce(0) { $0 + startCode.count + $1.count }
    }

    /// Writes `nalUnits` as an Annex-B stream into `output` and returns the number of bytes written.
    ///
    /// NAL units are written as given: an empty one, or one ending in 0x00 (which no valid NAL unit does), would not
    /// read back the same.
    /// - Throws: `.outputTooSmall` before writing anything if `output` holds fewer than `joinedSize` bytes.
    @discardableResult
    public static func join<NALUnits: Collection>(
        _ nalUnits: NALUnits, into output: UnsafeMutableRawBufferPointer
    ) throws(BitstreamError) -> Int where NALUnits.Element: Collection<UInt8> {
        let needed = joinedSize(nalUnits)
        guard needed <= output.count else { throw .outputTooSmall(needed: needed, available: output.count) }
        guard needed > 0, let out = output.baseAddress else { return 0 }
        var offset = 0
        for nalUnit in nalUnits {
            ByteLayer.writeStartCode(to: out, at: offset)
            ByteLayer.copy(nalUnit, to: out + offset + 4)
            offset += 4 + nalUnit.count
        }
        return offset
    }

    /// `nalUnits` as a new Annex-B buffer with 4-byte start codes.
    public static func join<NALUnits: Collection>(_ nalUnits: NALUnits) -> [UInt8]
    where NALUnits.Element: Collection<UInt8> {
        let size = joinedSize(nalUnits)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            // Cannot throw: the buffer has exactly joinedSize bytes.
            initialized = (try? join(nalUnits, into: UnsafeMutableRawBufferPointer(buffer))) ?? 0
        }
    }
}
