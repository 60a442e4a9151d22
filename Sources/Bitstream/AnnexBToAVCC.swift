// Annex-B → AVCC: replace each start code (and the zero bytes around it) with a big-endian length prefix.
//
// In place works when every NAL unit has at least four bytes in front of it (a 4-byte start code, possibly with
// extra zero bytes): the 4-byte length then fits where the start code was and NAL units only ever move towards the
// front. A 3-byte start code leaves no room, so in-place conversion refuses such a buffer (`.shortStartCode`)
// before touching it; convert into a separate buffer instead.

extension AnnexB {
    /// Bytes `toAVCC` writes for `bytes` with `lengthSize`-byte lengths.
    /// - Throws: as `forEachNALUnit`, `.invalidLengthSize`, and `.nalUnitTooLarge` for a NAL unit longer than a
    ///   `lengthSize`-byte length can say.
    public static func avccSize(_ bytes: ArraySlice<UInt8>, lengthSize: Int) throws(BitstreamError) -> Int {
        try ByteLayer.checkLengthSize(lengthSize)
        let maxLength = ByteLayer.maxNALUnitLength(lengthSize: lengthSize)
        var size = 0
        try ByteLayer.withRaw(bytes) { raw throws(BitstreamError) in
            try AnnexBScanner.scan(raw) { _, start, end throws(BitstreamError) in
                guard end - start <= maxLength else {
                    throw .make(.nalUnitTooLarge,
                        "NAL unit of \(end - start) bytes, a \(lengthSize)-byte length holds at most \(maxLength)",
                        offset: start
                    )
                }
                size += lengthSize + end - start
            }
        }
        return size
    }

    /// Converts Annex-B `bytes` to length-prefixed NAL units in `output`; returns the number of bytes written.
    /// - Throws: as `avccSize`, and `.outputTooSmall`; nothing is written when this throws.
    @discardableResult
    public static func toAVCC(
        _ bytes: ArraySlice<UInt8>, lengthSize: Int, into output: UnsafeMutableRawBufferPointer
    ) throws(BitstreamError) -> Int {
        let needed = try avccSize(bytes, lengthSize: lengthSize)
        guard needed <= output.count else { throw .outputTooSmall(needed: needed, available: output.count) }
        guard needed > 0, let out = output.baseAddress else { return 0 }
        var written = 0
        try ByteLayer.withRaw(bytes) { raw throws(BitstreamError) in
            guard let source = raw.baseAddress else { return }
            // Already validated by avccSize, so this scan cannot throw.
            try AnnexBScanner.scan(raw) { _, start, end in
                ByteLayer.writeLength(end - start, to: out, at: written, lengthSize: lengthSize)
                (out + written + lengthSize).copyMemory(from: source + start, byteCount: end - start)
                written += lengthSize + end - start
            }
        }
        return written
    }

    /// `bytes` converted to a new length-prefixed buffer.
    /// - Throws: as `avccSize`.
    public static func toAVCC(_ bytes: ArraySlice<UInt8>, lengthSize: Int) throws(BitstreamError) -> [UInt8] {
        let size = try avccSize(bytes, lengthSize: lengthSize)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            // Cannot throw: avccSize validated the input and sized the buffer.
            initialized = (try? toAVCC(bytes, lengthSize: lengthSize, into: UnsafeMutableRawBufferPointer(buffer))) ?? 0
        }
    }

    /// Rewrites Annex-B data in place as NAL units with 4-byte lengths and returns the new byte count (at most
    /// `buffer.count`; zero bytes between NAL units are squeezed out, the tail past the returned count is garbage).
    ///
    /// The whole buffer is validated first, so on error it is left untouched.
    /// - Throws: as `forEachNALUnit`, and `.shortStartCode` when a NAL unit has fewer than four bytes in front of it.
    public static func toAVCCInPlace(_ buffer: UnsafeMutableRawBufferPointer) throws(BitstreamError) -> Int {
        let raw = UnsafeRawBufferPointer(buffer)
        try AnnexBScanner.scan(raw) { gapStart, start, end throws(BitstreamError) in
            guard start - gapStart >= 4 else {
                throw .make(.shortStartCode,
                    "3-byte start code: no room for a 4-byte length in place", offset: start - 3
                )
            }
            // A NAL unit inside a buffer of Int.max bytes could still exceed 2^32 - 1 on 64-bit systems.
            guard end - start <= Int(UInt32.max) else {
                throw .make(.nalUnitTooLarge, "NAL unit of \(end - start) bytes exceeds a 4-byte length", offset: start)
            }
        }
        guard let base = buffer.baseAddress else { return 0 }
        var written = 0
        // Safe to rewrite while scanning: each NAL unit lands in [written, end) with written + 4 <= start, and the
        // scanner has read everything up to the next start code before it hands out a NAL unit, and never reads
        // behind it again. Validated above, so this scan cannot throw.
        try AnnexBScanner.scan(raw) { _, start, end in
            ByteLayer.writeLength(end - start, to: base, at: written, lengthSize: 4)
            ByteLayer.move(base, to: written + 4, from: start, count: end - start)
            written += 4 + end - start
        }
        return written
    }

    /// `toAVCCInPlace` for an array, which is shortened to the converted bytes.
    public static func toAVCCInPlace(_ buffer: inout [UInt8]) throws(BitstreamError) {
        let count = try ByteLayer.withMutableRaw(&buffer) { raw throws(BitstreamError) in try toAVCCInPlace(raw) }
        buffer.removeLast(buffer.count - count)
    }
}
