// Reading, writing and building hvcC; the syntax is drawn in HEVCDecoderConfigurationRecord.swift.

extension HEVC.DecoderConfigurationRecord {
    /// The fixed part before numOfArrays.
    static let headerSize = 22

    /// Parses an hvcC box payload (without the box header).
    ///
    /// - Throws: `.truncated` with the offset of the field that does not fit; `.unsupported` for a
    ///   configurationVersion other than 0 or 1; `.emptyNALUnit`.
    public init(parsing bytes: ArraySlice<UInt8>) throws(BitstreamError) {
        var reader = HVCCReader(bytes: bytes)
        let version = try reader.byte("configurationVersion")
        var warnings: [BitstreamWarning] = []
        if version == 0 {
            // FFmpeg's decoder reads version 0 hvcC ("until 14496-15 3rd is finalized"); the layout is the same.
            warnings.append(BitstreamWarning(
                code: .reservedValue, syntaxElement: "configurationVersion",
                reason: "0 (pre-standard), read as 1", offset: 0))
        } else if version != 1 {
            throw .make(.unsupported, "hvcC configurationVersion \(version), only 1 is defined", offset: 0)
        }
        let profileByte = try reader.byte("general_profile_idc")
        let compatibility = UInt32(try reader.bytes(4, "general_profile_compatibility_flags"))
        let constraints = try reader.bytes(6, "general_constraint_indicator_flags")
        let level = try reader.byte("general_level_idc")
        let segmentation = UInt16(try reader.bytes(2, "min_spatial_segmentation_idc") & 0x0FFF)
        let parallelism = try reader.byte("parallelismType") & 0x03
        let chroma = try reader.byte("chromaFormat") & 0x03
        let luma = try reader.byte("bitDepthLumaMinus8") & 0x07
        let chromaDepth = try reader.byte("bitDepthChromaMinus8") & 0x07
        let frameRate = UInt16(try reader.bytes(2, "avgFrameRate"))
        let flags = try reader.byte("lengthSizeMinusOne")
        let lengthSize = Int(flags & 0x03) + 1
        if lengthSize == 3 {
            warnings.append(.reservedLengthSize(offset: reader.offset - 1))
        }
        let arrayCount = Int(try reader.byte("numOfArrays"))
        var arrays: [NALUnitArray] = []
        for _ in 0..<arrayCount {
            let typeByte = try reader.byte("NAL_unit_type")
            let count = Int(try reader.bytes(2, "numNalus"))
            var nalUnits: [[UInt8]] = []
            for _ in 0..<count {
                let lengthOffset = reader.offset
                let length = Int(try reader.bytes(2, "nalUnitLength"))
                guard length > 0 else { throw .make(.emptyNALUnit, "nalUnitLength 0", offset: lengthOffset) }
                nalUnits.append(try reader.take(length, "nalUnit", lengthOffset: lengthOffset))
            }
            arrays.append(NALUnitArray(
                arrayCompleteness: typeByte & 0x80 != 0, nalUnitType: HEVC.NALUnitType(rawValue: typeByte & 0x3F),
                nalUnits: nalUnits))
        }
        try self.init(
            generalProfileSpace: profileByte >> 6, generalTierFlag: profileByte & 0x20 != 0,
            generalProfileIdc: profileByte & 0x1F, generalProfileCompatibilityFlags: compatibility,
            generalConstraintIndicatorFlags: constraints, generalLevelIdc: level,
            minSpatialSegmentationIdc: segmentation, parallelismType: parallelism, chromaFormat: chroma,
            bitDepthLumaMinus8: luma, bitDepthChromaMinus8: chromaDepth, avgFrameRate: frameRate,
            constantFrameRate: flags >> 6, numTemporalLayers: (flags >> 3) & 0x07, temporalIdNested: flags & 0x04 != 0,
            nalUnitLengthSize: lengthSize == 3 ? 4 : lengthSize, arrays: arrays)
        lengthSizeMinusOne = UInt8(lengthSize - 1)
        configurationVersion = version
        self.warnings = warnings
    }

    /// Bytes `serialized()` produces.
    public var serializedSize: Int {
        arrays.reduce(Self.headerSize + 1) { size, array in
            size + 3 + array.nalUnits.reduce(0) { $0 + 2 + $1.count }
        }
    }

    /// The hvcC box payload, reserved bits set to 1 as the syntax requires.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(serializedSize)
        out.append(1)
        out.append(generalProfileSpace << 6 | (generalTierFlag ? 0x20 : 0) | generalProfileIdc)
        Self.append(UInt64(generalProfileCompatibilityFlags), bytes: 4, to: &out)
        Self.append(generalConstraintIndicatorFlags, bytes: 6, to: &out)
        out.append(generalLevelIdc)
        Self.append(0xF000 | UInt64(minSpatialSegmentationIdc), bytes: 2, to: &out)
        out += [0xFC | parallelismType, 0xFC | chromaFormat, 0xF8 | bitDepthLumaMinus8, 0xF8 | bitDepthChromaMinus8]
        Self.append(UInt64(avgFrameRate), bytes: 2, to: &out)
        out.append(constantFrameRate << 6 | numTemporalLayers << 3 | (temporalIdNested ? 0x04 : 0) | lengthSizeMinusOne)
        // Counts and lengths were range-checked by init, so the truncations below lose nothing.
        out.append(UInt8(truncatingIfNeeded: arrays.count))
        for array in arrays {
            out.append((array.arrayCompleteness ? 0x80 : 0) | array.nalUnitType.rawValue)
            Self.append(UInt64(array.nalUnits.count), bytes: 2, to: &out)
            for nalUnit in array.nalUnits {
                Self.append(UInt64(nalUnit.count), bytes: 2, to: &out)
                out += nalUnit
            }
        }
        return out
    }

    private static func append(_ value: UInt64, bytes: Int, to out: inout [UInt8]) {
        for k in stride(from: bytes - 1, through: 0, by: -1) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * k)))
        }
    }

    /// A record for an encoder's parameter sets and SEI (whole NAL units, in any order, as in extradata), with
    /// the fields FFmpeg's `ff_isom_write_hvcc` (libavformat/hevc.c, 5.1) writes, so a record built here equals
    /// the one ffmpeg's MP4 muxer writes for the same extradata: the general_* fields from the first SPS's
    /// profile_tier_level, min_spatial_segmentation_idc from its VUI, parallelismType from the PPS when that is
    /// above 0 (else 0), chroma format and bit depths from the SPS, avgFrameRate and constantFrameRate 0,
    /// numTemporalLayers the most sub-layers of the VPS and SPS, temporalIdNested from the SPS. Arrays go in the
    /// order VPS, SPS, PPS, prefix SEI, suffix SEI; `arrayCompleteness` (1 for hvc1, 0 for hev1) is set on the
    /// parameter-set arrays, never on SEI arrays. Other NAL unit types are left out.
    ///
    /// - Throws: `.invalidValue` without a VPS, SPS and PPS; what parsing the first VPS, SPS and PPS throws.
    public init(
        nalUnits: [[UInt8]], arrayCompleteness: Bool = true, nalUnitLengthSize: Int = 4
    ) throws(BitstreamError) {
        let order: [HEVC.NALUnitType] = [.vps, .sps, .pps, .prefixSEI, .suffixSEI]
        var byType: [HEVC.NALUnitType: [[UInt8]]] = [:]
        for nalUnit in nalUnits {
            guard let type = HEVC.NALUnitHeader(nalUnit)?.nalUnitType, order.contains(type) else { continue }
            byType[type, default: []].append(nalUnit)
        }
        guard let vpsBytes = byType[.vps]?.first, let spsBytes = byType[.sps]?.first,
              let ppsBytes = byType[.pps]?.first
        else {
            throw .make(.invalidValue, "an hvcC record needs a VPS, an SPS and a PPS")
        }
        let vps = try HEVC.VideoParameterSet(nalUnit: vpsBytes[...])
        let sps = try HEVC.SequenceParameterSet(nalUnit: spsBytes[...])
        let pps = try HEVC.PictureParameterSet(nalUnit: ppsBytes[...])
        let ptl = sps.profileTierLevel
        let segmentation = Swift.min(sps.vuiParameters?.minSpatialSegmentationIdc ?? 0, 4095)
        var parallelism: UInt8 = 0
        if segmentation > 0 {
            switch (pps.entropyCodingSyncEnabledFlag, pps.tilesEnabledFlag) {
            case (true, true): parallelism = 0
            case (true, false): parallelism = 3
            case (false, true): parallelism = 2
            case (false, false): parallelism = 1
            }
        }
        try self.init(
            generalProfileSpace: ptl.generalProfileSpace, generalTierFlag: ptl.generalTierFlag,
            generalProfileIdc: ptl.generalProfileIdc,
            generalProfileCompatibilityFlags: ptl.general?.profileCompatibilityFlags ?? 0,
            generalConstraintIndicatorFlags: ptl.general?.constraintIndicatorFlags ?? 0,
            generalLevelIdc: ptl.generalLevelIdc, minSpatialSegmentationIdc: UInt16(segmentation),
            parallelismType: parallelism, chromaFormat: UInt8(sps.chromaFormatIdc),
            bitDepthLumaMinus8: UInt8(sps.bitDepthLumaMinus8), bitDepthChromaMinus8: UInt8(sps.bitDepthChromaMinus8),
            numTemporalLayers: UInt8(Swift.max(vps.vpsMaxSubLayersMinus1, sps.spsMaxSubLayersMinus1) + 1),
            temporalIdNested: sps.spsTemporalIdNestingFlag, nalUnitLengthSize: nalUnitLengthSize,
            arrays: order.compactMap { type in
                byType[type].map {
                    NALUnitArray(arrayCompleteness: arrayCompleteness && type.isParameterSet, nalUnitType: type,
                                 nalUnits: $0)
                }
            })
    }
}

/// A forward reader over the record bytes; offsets count from the start of the slice.
private struct HVCCReader {
    let bytes: ArraySlice<UInt8>
    var offset = 0

    mutating func byte(_ field: String) throws(BitstreamError) -> UInt8 {
        guard offset < bytes.count else { throw .make(.truncated, "hvcC ends before \(field)", offset: offset) }
        defer { offset += 1 }
        return bytes[bytes.startIndex + offset]
    }

    /// A big-endian unsigned field of `count` bytes (≤ 8).
    mutating func bytes(_ count: Int, _ field: String) throws(BitstreamError) -> UInt64 {
        guard count <= bytes.count - offset else { throw .make(.truncated, "hvcC ends inside \(field)", offset: offset) }
        var value: UInt64 = 0
        for _ in 0..<count { value = value << 8 | UInt64(try byte(field)) }
        return value
    }

    mutating func take(_ count: Int, _ field: String, lengthOffset: Int) throws(BitstreamError) -> [UInt8] {
        guard count <= bytes.count - offset else {
            throw .make(.truncated, "\(field)Length \(count) but \(bytes.count - offset) bytes follow", offset: lengthOffset)
        }
        let start = bytes.startIndex + offset
        offset += count
        return Array(bytes[start..<(start + count)])
    }
}
