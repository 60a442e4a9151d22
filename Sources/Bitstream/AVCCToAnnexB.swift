// AVCC → Annex-B: replace each length prefix with a 4-byte start code.
//
// With 4-byte lengths the output has the input's layout exactly, so the conversion is a bulk copy followed by one
// 4-byte store per NAL unit, or, in place, the stores alone. Optionally the SPS/PPS of an avcC record go in front
// of the first IDR slice of a buffer that carries none, because an MP4 keeps them out of band (in the avcC box)
// while an Annex-B decoder that joins at that IDR needs them in band — the same repair libwebrtc's receiver and
// FFmpeg's h264_mp4toannexb filter make.

extension AVCC {
    /// Bytes `toAnnexB` writes for `avcc`.
    /// - Throws: as `forEachNALUnit`.
    public static func annexBSize(
        _ avcc: ArraySlice<UInt8>, lengthSize: Int, parameterSets: AVCDecoderConfigurationRecord? = nil
    ) throws(BitstreamError) -> Int {
        try ByteLayer.withRaw(avcc) { raw throws(BitstreamError) in
            try annexBPlan(raw, lengthSize: lengthSize, parameterSets: parameterSets).outputSize
        }
    }

    /// Converts one length-prefixed buffer (typically an MP4 sample, one access unit) to Annex-B with 4-byte start
    /// codes, into `output`; returns the number of bytes written.
    ///
    /// - Parameter parameterSets: when given, and the buffer has an IDR slice (nal_unit_type 5) with no SPS or no
    ///   PPS before it, the record's SPSs and/or PPSs are written right in front of that first IDR slice, so after
    ///   any access unit delimiter and SEI — the order FFmpeg's h264_mp4toannexb produces and libwebrtc's receiver
    ///   repairs to. The record's SPS extensions are not inserted.
    /// - Throws: as `forEachNALUnit`, and `.outputTooSmall`; nothing is written when this throws.
    @discardableResult
    public static func toAnnexB(
        _ avcc: ArraySlice<UInt8>, lengthSize: Int, parameterSets: AVCDecoderConfigurationRecord? = nil,
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
                if prefixStart == plan.insertionPoint, let parameterSets {
                    if plan.insertSPS {
                        written += writeAnnexB(parameterSets.sequenceParameterSets, to: out + written)
                    }
                    if plan.insertPPS {
                        written += writeAnnexB(parameterSets.pictureParameterSets, to: out + written)
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
        _ avcc: ArraySlice<UInt8>, lengthSize: Int, parameterSets: AVCDecoderConfigurationRecord? = nil
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
        /// Offset of the length prefix of the IDR slice that gets parameter sets in front, if any.
        var insertionPoint: Int?
        var insertSPS = false
        var insertPPS = false
    }

    static func annexBPlan(
        _ raw: UnsafeRawBufferPointer, lengthSize: Int, parameterSets: AVCDecoderConfigurationRecord?
    ) throws(BitstreamError) -> AnnexBPlan {
        var plan = AnnexBPlan()
        var sawSPS = false, sawPPS = false, sawIDR = false
        try walk(raw, lengthSize: lengthSize) { prefixStart, start, end in
            // 4 - lengthSize ≥ 0 extra bytes per NAL unit; the sum stays below 2 × raw.count.
            plan.outputSize += 4 + end - start
            guard let parameterSets, !sawIDR else { return }
            switch NALUnitHeader(raw[start]).nalUnitType {
            case .sps: sawSPS = true
            case .pps: sawPPS = true
            case .idr:
                sawIDR = true
                plan.insertSPS = !sawSPS && !parameterSets.sequenceParameterSets.isEmpty
                plan.insertPPS = !sawPPS && !parameterSets.pictureParameterSets.isEmpty
                if plan.insertSPS || plan.insertPPS {
                    plan.insertionPoint = prefixStart
                    if plan.insertSPS { plan.outputSize += AnnexB.joinedSize(parameterSets.sequenceParameterSets) }
                    if plan.insertPPS { plan.outputSize += AnnexB.joinedSize(parameterSets.pictureParameterSets) }
                }
            default: break
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
