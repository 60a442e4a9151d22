// AVCC → Annex-B: replace each length prefix with a 4-byte start code.
//
// With 4-byte lengths the output has the input's layout exactly, so the conversion is a bulk copy followed by one
// 4-byte store per NAL unit, or, in place, the stores alone. Optionally the parameter sets of a decoder
// configuration record (avcC: SPS/PPS; hvcC: VPS/SPS/PPS) go in front of the first random-access slice of a buffer
// that carries none, because an MP4 keeps them out of band while an Annex-B decoder that joins at that picture
// needs them in band — the same repair libwebrtc's receiver and FFmpeg's h264_mp4toannexb/hevc_mp4toannexb make.

extension AVCC {
    /// Bytes `toAnnexB` writes for `avcc`.
    /// - Throws: as `forEachNALUnit`.
    public static func annexBSize(
        _ avcc: ArraySlice<UInt8>, lengthSize: Int, parameterSets: (any OutOfBandParameterSets)? = nil
    ) throws(BitstreamError) -> Int {
        try ByteLayer.withRaw(avcc) { raw throws(BitstreamError) in
            try annexBPlan(raw, lengthSize: lengthSize, parameterSets: parameterSets).outputSize
        }
    }

    /// Converts one length-prefixed buffer (typically an MP4 sample, one access unit) to Annex-B with 4-byte start
    /// codes, into `output`; returns the number of bytes written.
    ///
    /// - Parameter parameterSets: when given, and the buffer has a random-access slice (H.264 IDR, nal_unit_type 5;
    ///   H.265 IRAP, 16…23) with parameter sets of some type missing before it, the record's sets of each missing
    ///   type are written right in front of that first random-access slice, so after any access unit delimiter
    ///   and SEI — the order FFmpeg's h264_mp4toannexb produces and libwebrtc's receiver repairs to. The record's
    ///   SPS extensions and SEI arrays are not inserted.
    /// - Throws: as `forEachNALUnit`, and `.outputTooSmall`; nothing is written when this throws.
    @discardableResult
    public static func toAnnexB(
        _ avcc: ArraySlice<UInt8>, lengthSize: Int, parameterSets: (any OutOfBandParameterSets)? = nil,
        into output: UnsafeMutableRawBufferPointer
    ) throws(BitstreamError) -> Int {
        try ByteLayer.withRaw(avcc) { raw throws(BitstreamError) in
            let plan = try annexBPlan(raw, lengthSize: lengthSize, parameterSets: parameterSets)
            guard plan.outputSize <= output.count else {
                throw .outputTooSmall(needed: plan.outputSize, available: output.count)
            }
            guard plan.outputSize > 0, let source = raw.baseAddress, let out = output.baseAddress else { return 0 }
            if lengthSize == 4, plan.insertionPoint == nil {
                // Same layout: one bulk copy, then a start code over each length.
                out.copyMemory(from: source, byteCount: raw.count)
                rewriteLengthsAsStartCodes(UnsafeMutableRawBufferPointer(start: out, count: raw.count))
                return raw.count
            }
            var written = 0
            // Already validated by annexBPlan, so this walk cannot throw.
            try walk(raw, lengthSize: lengthSize) { prefixStart, start, end in
                if prefixStart == plan.insertionPoint {
                    for group in plan.inserted {
                        written += writeAnnexB(group, to: out + written)
                    }
                }
                ByteLayer.writeStartCode(to: out, at: written)
                (out + written + 4).copyMemory(from: source + start, byteCount: end - start)
                written += 4 + end - start
            }
            return written
        }
    }

    /// `avcc` converted to a new Annex-B buffer; see `toAnnexB(_:lengthSize:parameterSets:into:)`.
    public static func toAnnexB(
        _ avcc: ArraySlice<UInt8>, lengthSize: Int, parameterSets: (any OutOfBandParameterSets)? = nil
    ) throws(BitstreamError) -> [UInt8] {
        let size = try annexBSize(avcc, lengthSize: lengthSize, parameterSets: parameterSets)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            // Cannot throw: annexBSize validated the input and sized the buffer.
            initialized = (try? toAnnexB(
                avcc, lengthSize: lengthSize, parameterSets: parameterSets,
                into: UnsafeMutableRawBufferPointer(buffer)
            )) ?? 0
        }
    }

    /// Rewrites a buffer with 4-byte lengths to Annex-B in place: each length becomes 00 00 00 01.
    ///
    /// The whole buffer is validated first, so on error it is left untouched, never half rewritten.
    /// - Throws: as `forEachNALUnit` with `lengthSize` 4.
    public static func toAnnexBInPlace(_ buffer: UnsafeMutableRawBufferPointer) throws(BitstreamError) {
        try walk(UnsafeRawBufferPointer(buffer), lengthSize: 4) { _, _, _ in }
        rewriteLengthsAsStartCodes(buffer)
    }

    /// `toAnnexBInPlace` for an array.
    public static func toAnnexBInPlace(_ buffer: inout [UInt8]) throws(BitstreamError) {
        try ByteLayer.withMutableRaw(&buffer) { raw throws(BitstreamError) in try toAnnexBInPlace(raw) }
    }

    // MARK: - Internals

    /// What a conversion will write: its size, and where parameter sets go.
    struct AnnexBPlan {
        var outputSize = 0
        /// Offset of the length prefix of the random-access slice that gets parameter sets in front, if any.
        var insertionPoint: Int?
        /// The record's groups of parameter sets that go there, in order.
        var inserted: [[[UInt8]]] = []
    }

    static func annexBPlan(
        _ raw: UnsafeRawBufferPointer, lengthSize: Int, parameterSets: (any OutOfBandParameterSets)?
    ) throws(BitstreamError) -> AnnexBPlan {
        var plan = AnnexBPlan()
        let groups = parameterSets?.inBandParameterSets.filter { !$0.nalUnits.isEmpty } ?? []
        var seen = Array(repeating: false, count: groups.count)
        var sawRandomAccess = false
        try walk(raw, lengthSize: lengthSize) { prefixStart, start, end in
            // 4 - lengthSize ≥ 0 extra bytes per NAL unit; the sum stays below 2 × raw.count.
            plan.outputSize += 4 + end - start
            guard let codec = parameterSets?.codec, !sawRandomAccess else { return }
            let type = codec.nalUnitType(firstByte: raw[start])
            if let index = groups.firstIndex(where: { $0.nalUnitType == type }) {
                seen[index] = true
            } else if codec.isRandomAccessSlice(nalUnitType: type) {
                sawRandomAccess = true
                for (index, group) in groups.enumerated() where !seen[index] {
                    plan.inserted.append(group.nalUnits)
                    plan.outputSize += AnnexB.joinedSize(group.nalUnits)
                }
                if !plan.inserted.isEmpty { plan.insertionPoint = prefixStart }
            }
        }
        return plan
    }

    /// Writes NAL units with start codes at `out`; the caller has made room. Returns the bytes written.
    private static func writeAnnexB(_ nalUnits: [[UInt8]], to out: UnsafeMutableRawPointer) -> Int {
        var written = 0
        for nalUnit in nalUnits {
            ByteLayer.writeStartCode(to: out, at: written)
            ByteLayer.copy(nalUnit, to: out + written + 4)
            written += 4 + nalUnit.count
        }
        return written
    }

    /// Overwrites each 4-byte length of an already validated buffer with a start code.
    private static func rewriteLengthsAsStartCodes(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset + 4 <= buffer.count {
            let length = ByteLayer.readLength(base, at: offset, lengthSize: 4)
            ByteLayer.writeStartCode(to: base, at: offset)
            offset += 4 + length
        }
    }
}
