import BitrateAdaptation  // String(cFormat:)
import Bitstream
import FoundationEssentials

/// What `rtenc inspect` reports about an H.265 Annex-B stream: every NAL unit, the access units they form
/// (§7.4.2.4.4), and every VPS/SPS/PPS, with the spec's syntax-element names as keys (`StreamReport` is the H.264
/// one; the two share the `Warning` shape and the layout of the summary).
struct HEVCStreamReport: Encodable {
    struct NALUnit: Encodable {
        var index: Int
        var offset: Int
        var size: Int
        var header: HEVC.NALUnitHeader

        enum CodingKeys: String, CodingKey {
            case index, offset, size
            case nalUnitType = "nal_unit_type"
            case typeName = "type_name"
            case nuhLayerId = "nuh_layer_id"
            case nuhTemporalIdPlus1 = "nuh_temporal_id_plus1"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(index, forKey: .index)
            try c.encode(offset, forKey: .offset)
            try c.encode(size, forKey: .size)
            try c.encode(header.nalUnitType.rawValue, forKey: .nalUnitType)
            try c.encode(header.nalUnitType.description, forKey: .typeName)
            try c.encode(header.nuhLayerId, forKey: .nuhLayerId)
            try c.encode(header.nuhTemporalIdPlus1, forKey: .nuhTemporalIdPlus1)
        }
    }

    var container = "annexb"
    let codec = "hevc"
    var nalUnits: [NALUnit] = []
    var accessUnits: [StreamReport.AccessUnit<HEVC.AccessUnit>] = []
    var videoParameterSets: [HEVC.VideoParameterSet] = []
    var sequenceParameterSets: [HEVC.SequenceParameterSet] = []
    var pictureParameterSets: [HEVC.PictureParameterSet] = []
    var warnings: [StreamReport.Warning] = []

    enum CodingKeys: String, CodingKey {
        case container, codec
        case nalUnits = "nal_units"
        case accessUnits = "access_units"
        case videoParameterSets = "vps"
        case sequenceParameterSets = "sps"
        case pictureParameterSets = "pps"
        case warnings
    }

    /// Parses a whole Annex-B stream. Parameter sets that do not parse, and slices whose header does not parse for
    /// any reason but a parameter set the stream has not sent yet (a capture that starts mid-GOP), are errors;
    /// what the parsers keep with a warning (as FFmpeg keeps it) is listed in `warnings`.
    init(annexB bytes: [UInt8], container: String = "annexb") throws(BitstreamError) {
        self.container = container
        var splitter = HEVC.AccessUnitSplitter()
        try AnnexB.forEachNALUnit(in: bytes[...]) { nal throws(BitstreamError) in
            guard let header = HEVC.NALUnitHeader(nal) else {
                throw .make(.truncated, "H.265 NAL unit of 1 byte at \(nal.startIndex): the header has 2", offset: nal.startIndex)
            }
            nalUnits.append(NALUnit(index: nalUnits.count, offset: nal.startIndex, size: nal.count, header: header))
            switch header.nalUnitType {
            case .vps:
                let vps = try HEVC.VideoParameterSet(nalUnit: nal)
                videoParameterSets.append(vps)
                note(vps.warnings, in: "vps")
            case .sps:
                let sps = try HEVC.SequenceParameterSet(nalUnit: nal)
                sequenceParameterSets.append(sps)
                note(sps.warnings, in: "sps")
            case .pps:
                let pps = try HEVC.PictureParameterSet(nalUnit: nal)
                pictureParameterSets.append(pps)
                note(pps.warnings, in: "pps")
            default:
                break
            }
            if let unit = splitter.append(nal) { try append(unit) }
        }
        if let unit = splitter.flush() { try append(unit) }
        if nalUnits.isEmpty {
            throw BitstreamError.make(.invalidValue, "no NAL units")
        }
    }

    private mutating func note(_ found: [BitstreamWarning], in structure: String) {
        warnings += found.map { StreamReport.Warning(nalUnit: nalUnits.count - 1, structure: structure, warning: $0) }
    }

    private mutating func append(_ unit: HEVC.AccessUnit) throws(BitstreamError) {
        if let error = unit.sliceHeaderError, error.code != .missingParameterSet {
            throw error
        }
        if let header = unit.firstSliceSegmentHeader, !header.warnings.isEmpty,
           let slice = unit.nalUnits.first(where: { HEVC.NALUnitHeader($0)?.nalUnitType.isVCL == true }),
           let index = nalUnits.firstIndex(where: { $0.offset == slice.startIndex })
        {
            warnings += header.warnings.map { .init(nalUnit: index, structure: "slice_segment_header", warning: $0) }
        }
        accessUnits.append(.init(index: accessUnits.count, offset: unit.nalUnits.first?.startIndex ?? 0, unit: unit))
    }

    /// A few lines for people: stream geometry, then counts by picture type and the random-access positions.
    func summaryTable(name: String) -> String {
        var lines: [String] = []
        let from = container == "annexb" ? "" : " (from \(container))"
        if let sps = sequenceParameterSets.first {
            let fps = sps.fps.map { String(cFormat: "%.3g fps", $0) } ?? "fps not signalled"
            let profile = sps.profile?.name ?? "general_profile_idc \(sps.profileTierLevel.generalProfileIdc)"
            let level = sps.level.map { $0.name } ?? "general_level_idc \(sps.profileTierLevel.generalLevelIdc)"
            let vui = sps.vuiTruncated ? ", VUI truncated" : ""
            lines.append("\(name)\(from): H.265 \(profile) @ \(level) \(sps.tier.name) tier, \(sps.width)x\(sps.height), "
                + "\(sps.bitDepthLuma)-bit, \(fps)\(vui)")
        } else {
            lines.append("\(name)\(from): H.265, no SPS")
        }
        lines.append("\(accessUnits.count) access units, \(nalUnits.count) NAL units, "
            + "\(videoParameterSets.count) VPS, \(sequenceParameterSets.count) SPS, \(pictureParameterSets.count) PPS")
        lines += StreamReport.pictureTypeTable(accessUnits.map {
            (type: $0.unit.isIDR ? "IDR" : $0.unit.isIRAP ? "IRAP" : ($0.unit.pictureSliceType?.name ?? "?"),
             bytes: $0.unit.byteCount, qp: $0.unit.qp)
        })
        let irap = accessUnits.filter { $0.unit.isIRAP }.map { String($0.index) }
        lines.append("IRAP at: " + (irap.isEmpty ? "none" : irap.joined(separator: ", ")))
        lines += StreamReport.warningLines(warnings)
        return lines.joined(separator: "\n") + "\n"
    }
}
