// Reading and writing the avcC bytes; the syntax is drawn in AVCDecoderConfigurationRecord.swift.

extension AVCDecoderConfigurationRecord {
    /// Parses an avcC box payload (without the box header).
    ///
    /// - Throws: `.truncated` with the offset of the field that does not fit; `.unsupported` for a
    ///   configurationVersion other than 1 (14496-15: readers must not decode an unknown version);
    ///   `.emptyNALUnit` for a zero-length parameter set.
    public init(parsing bytes: ArraySlice<UInt8>) throws(BitstreamError) {
        var reader = RecordReader(bytes: bytes)
        let version = try reader.byte("configurationVersion")
        guard version == 1 else {
            throw .make(.unsupported, "avcC configurationVersion \(version), only 1 is defined", offset: 0)
        }
        let profile = try reader.byte("AVCProfileIndication")
        let compatibility = try reader.byte("profile_compatibility")
        let level = try reader.byte("AVCLevelIndication")
        let lengthSize = Int(try reader.byte("lengthSizeMinusOne") & 0x03) + 1
        let lengthSizeWarning = lengthSize == 3 ? BitstreamWarning.reservedLengthSize(offset: reader.offset - 1) : nil
        let spsCount = Int(try reader.byte("numOfSequenceParameterSets") & 0x1F)
        let sps = try reader.parameterSets(count: spsCount, name: "sequenceParameterSet")
        let ppsCount = Int(try reader.byte("numOfPictureParameterSets"))
        let pps = try reader.parameterSets(count: ppsCount, name: "pictureParameterSet")

        var highProfileExtension: HighProfileExtension?
        var warnings: [BitstreamWarning] = []
        // Older muxers stop after the PPSs even for High profiles; a record that ends there has no extension.
        if Self.profileHasExtension(profile), !reader.atEnd {
            let start = reader.offset
            do throws(BitstreamError) {
                let chromaFormat = try reader.byte("chroma_format") & 0x03
                let bitDepthLuma = try reader.byte("bit_depth_luma_minus8") & 0x07
                let bitDepthChroma = try reader.byte("bit_depth_chroma_minus8") & 0x07
                let extCount = Int(try reader.byte("numOfSequenceParameterSetExt"))
                let ext = try reader.parameterSets(count: extCount, name: "sequenceParameterSetExt")
                highProfileExtension = try HighProfileExtension(
                    chromaFormat: chromaFormat, bitDepthLumaMinus8: bitDepthLuma, bitDepthChromaMinus8: bitDepthChroma,
                    sequenceParameterSetExtensions: ext
                )
            } catch where error.code == .truncated {
                // FFmpeg reads only the SPSs and PPSs of an avcC; the extension repeats what the SPS says. A cut one
                // is dropped with a warning rather than failing the whole record.
                warnings.append(BitstreamWarning(
                    code: .truncated, syntaxElement: "chroma_format",
                    reason: "the High-profile extension is cut short (\(error.reason)); ignored, the SPS carries "
                        + "the same fields", offset: start))
            }
        }
        try self.init(
            avcProfileIndication: profile, profileCompatibility: compatibility, avcLevelIndication: level,
            nalUnitLengthSize: lengthSize == 3 ? 4 : lengthSize, sequenceParameterSets: sps, pictureParameterSets: pps,
            highProfileExtension: highProfileExtension
        )
        lengthSizeMinusOne = UInt8(lengthSize - 1)
        self.warnings = (lengthSizeWarning.map { [$0] } ?? []) + warnings
    }

    /// Bytes `serialized()` produces.
    public var serializedSize: Int {
        var size = 7 + Self.setsSize(sequenceParameterSets) + Self.setsSize(pictureParameterSets)
        if let ext = highProfileExtension { size += 4 + Self.setsSize(ext.sequenceParameterSetExtensions) }
        return size
    }

    /// The avcC box payload, reserved bits set to 1 as the syntax requires.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(serializedSize)
        out += [configurationVersion, avcProfileIndication, profileCompatibility, avcLevelIndication]
        out.append(0xFC | lengthSizeMinusOne)
        // Counts and lengths were range-checked by init, so the truncations below lose nothing.
        out.append(0xE0 | UInt8(truncatingIfNeeded: sequenceParameterSets.count))
        Self.append(sequenceParameterSets, to: &out)
        out.append(UInt8(truncatingIfNeeded: pictureParameterSets.count))
        Self.append(pictureParameterSets, to: &out)
        if let ext = highProfileExtension {
            out += [0xFC | ext.chromaFormat, 0xF8 | ext.bitDepthLumaMinus8, 0xF8 | ext.bitDepthChromaMinus8]
            out.append(UInt8(truncatingIfNeeded: ext.sequenceParameterSetExtensions.count))
            Self.append(ext.sequenceParameterSetExtensions, to: &out)
        }
        return out
    }

    private static func setsSize(_ sets: [[UInt8]]) -> Int { sets.reduce(0) { $0 + 2 + $1.count } }

    private static func append(_ sets: [[UInt8]], to out: inout [UInt8]) {
        for set in sets {
            out += [UInt8(truncatingIfNeeded: set.count >> 8), UInt8(truncatingIfNeeded: set.count)]
            out += set
        }
    }
}

/// A forward reader over the record bytes; offsets count from the start of the slice.
private struct RecordReader {
    let bytes: ArraySlice<UInt8>
    var offset = 0

    var atEnd: Bool { offset >= bytes.count }

    mutating func byte(_ field: String) throws(BitstreamError) -> UInt8 {
        guard offset < bytes.count else { throw .make(.truncated, "avcC ends before \(field)", offset: offset) }
        defer { offset += 1 }
        return bytes[bytes.startIndex + offset]
    }

    mutating func parameterSets(count: Int, name: String) throws(BitstreamError) -> [[UInt8]] {
        var sets: [[UInt8]] = []
        sets.reserveCapacity(count)
        for _ in 0..<count {
            let lengthOffset = offset
            let length = Int(try byte("\(name)Length")) << 8 | Int(try byte("\(name)Length"))
            guard length > 0 else { throw .make(.emptyNALUnit, "\(name)Length 0", offset: lengthOffset) }
            guard length <= bytes.count - offset else {
                throw .make(.truncated,
                    "\(name)Length \(length) but \(bytes.count - offset) bytes follow", offset: lengthOffset
                )
            }
            let start = bytes.startIndex + offset
            sets.append(Array(bytes[start..<(start + length)]))
            offset += length
        }
        return sets
    }
}
