#if canImport(Glibc)
import Glibc
#endif
import BitrateAdaptation  // String(cFormat:)
import Bitstream
import FoundationEssentials

/// What `rtenc inspect` reports about an Annex-B stream: every NAL unit, the access units they form (§7.4.1.2.3),
/// and every SPS/PPS, with the spec's syntax-element names as keys.
struct StreamReport: Encodable {
    struct NALUnit: Encodable {
        var index: Int
        var offset: Int
        var size: Int
        var nalUnitType: UInt8
        var typeName: String
        var nalRefIdc: UInt8

        enum CodingKeys: String, CodingKey {
            case index, offset, size
            case nalUnitType = "nal_unit_type"
            case typeName = "type_name"
            case nalRefIdc = "nal_ref_idc"
        }
    }

    /// An access unit of either codec with its place in the stream.
    struct AccessUnit<Unit: Encodable>: Encodable {
        var index: Int
        /// Byte offset of the first NAL unit's first byte (after its start code).
        var offset: Int
        var unit: Unit

        enum CodingKeys: String, CodingKey { case index, offset }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(offset, forKey: .offset)
            try unit.encode(to: encoder)
        }
    }

    /// What a parser accepted against the specification (as FFmpeg accepts it), and where.
    struct Warning: Encodable, Hashable {
        /// Index of the NAL unit in `nal_units`; nil for the container's avcC record.
        var nalUnit: Int?
        /// "sps", "pps", "slice_header" or "avcC".
        var structure: String
        var warning: BitstreamWarning

        enum CodingKeys: String, CodingKey {
            case nalUnit = "nal_unit"
            case structure
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(nalUnit, forKey: .nalUnit)
            try container.encode(structure, forKey: .structure)
            try warning.encode(to: encoder)
        }
    }

    /// "annexb" for a raw stream, else libavformat's name of the container the stream was demuxed from.
    var container = "annexb"
    var nalUnits: [NALUnit] = []
    var accessUnits: [AccessUnit<H264.AccessUnit>] = []
    var sequenceParameterSets: [H264.SequenceParameterSet] = []
    var pictureParameterSets: [H264.PictureParameterSet] = []
    var warnings: [Warning] = []

    enum CodingKeys: String, CodingKey {
        case container
        case nalUnits = "nal_units"
        case accessUnits = "access_units"
        case sequenceParameterSets = "sps"
        case pictureParameterSets = "pps"
        case warnings
    }

    /// Parses a whole Annex-B stream. Parameter sets that do not parse, and slices whose header does not parse
    /// for any reason but a parameter set the stream has not sent yet (a capture that starts mid-GOP), are errors;
    /// what the parsers keep with a warning (as FFmpeg keeps it) is listed in `warnings`.
    init(annexB bytes: [UInt8], container: String = "annexb") throws(BitstreamError) {
        self.container = container
        var splitter = H264.AccessUnitSplitter()
        var parameterSets = H264.ParameterSets()
        try AnnexB.forEachNALUnit(in: bytes[...]) { nal throws(BitstreamError) in
            // forEachNALUnit never hands out an empty NAL unit.
            let header = NALUnitHeader(nal[nal.startIndex])
            nalUnits.append(NALUnit(
                index: nalUnits.count, offset: nal.startIndex, size: nal.count,
                nalUnitType: header.nalUnitType.rawValue, typeName: header.nalUnitType.description,
                nalRefIdc: header.nalRefIdc))
            switch header.nalUnitType {
            case .sps:
                let sps = try H264.SequenceParameterSet(nalUnit: nal)
                sequenceParameterSets.append(sps)
                note(sps.warnings, in: "sps")
            case .pps:
                let pps = try H264.PictureParameterSet(
                    nalUnit: nal, sequenceParameterSets: parameterSets.sequenceParameterSets)
                pictureParameterSets.append(pps)
                note(pps.warnings, in: "pps")
            default:
                break
            }
            _ = try parameterSets.update(nalUnit: nal)
            if let unit = splitter.append(nal) { try append(unit) }
        }
        if let unit = splitter.flush() { try append(unit) }
        if nalUnits.isEmpty {
            throw BitstreamError.make(.invalidValue, "no NAL units")
        }
    }

    /// Warnings of the NAL unit just appended to `nalUnits`.
    private mutating func note(_ found: [BitstreamWarning], in structure: String) {
        warnings += found.map { Warning(nalUnit: nalUnits.count - 1, structure: structure, warning: $0) }
    }

    private mutating func append(_ unit: H264.AccessUnit) throws(BitstreamError) {
        if let error = unit.sliceHeaderError, error.code != .missingParameterSet {
            throw error
        }
        if let header = unit.firstSliceHeader, !header.warnings.isEmpty,
           let slice = unit.nalUnits.first(where: { [1, 5].contains(($0.first ?? 0) & 0x1F) }),
           let index = nalUnits.firstIndex(where: { $0.offset == slice.startIndex })
        {
            warnings += header.warnings.map { Warning(nalUnit: index, structure: "slice_header", warning: $0) }
        }
        accessUnits.append(AccessUnit(index: accessUnits.count, offset: unit.nalUnits.first?.startIndex ?? 0, unit: unit))
    }

    /// A few lines for people: stream geometry, then counts by picture type and the keyframe positions.
    func summaryTable(name: String) -> String {
        var lines: [String] = []
        let from = container == "annexb" ? "" : " (from \(container))"
        if let sps = sequenceParameterSets.first {
            let fps = sps.fps.map { String(cFormat: "%.3g fps", $0) } ?? "fps not signalled"
            let profile = sps.profile.map(Self.flagSpelling) ?? "profile_idc \(sps.profileIdc)"
            let level = sps.level.map { $0.name } ?? "level_idc \(sps.levelIdc)"
            let vui = sps.vuiTruncated ? ", VUI truncated" : ""
            lines.append("\(name)\(from): H.264 \(profile) @ \(level), \(sps.width)x\(sps.height), \(fps)\(vui)")
        } else {
            lines.append("\(name)\(from): H.264, no SPS")
        }
        lines.append("\(accessUnits.count) access units, \(nalUnits.count) NAL units, "
            + "\(sequenceParameterSets.count) SPS, \(pictureParameterSets.count) PPS")
        lines += Self.pictureTypeTable(accessUnits.map {
            (type: $0.unit.isIDR ? "IDR" : ($0.unit.primarySliceType?.name ?? "?"), bytes: $0.unit.byteCount,
             qp: $0.unit.qp)
        })
        let keyframes = accessUnits.filter { $0.unit.isIDR }.map { String($0.index) }
        lines.append("IDR at: " + (keyframes.isEmpty ? "none" : keyframes.joined(separator: ", ")))
        lines += Self.warningLines(warnings)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Count, average size and average QP per picture type, one line each, sorted by type.
    static func pictureTypeTable(_ pictures: [(type: String, bytes: Int, qp: Int?)]) -> [String] {
        var byType: [String: (count: Int, bytes: Int, qpSum: Int, qpCount: Int)] = [:]
        for picture in pictures {
            var entry = byType[picture.type, default: (0, 0, 0, 0)]
            entry.count += 1
            entry.bytes += picture.bytes
            if let qp = picture.qp { entry.qpSum += qp; entry.qpCount += 1 }
            byType[picture.type] = entry
        }
        var lines = ["type  count   avg bytes  avg QP"]
        for (type, entry) in byType.sorted(by: { $0.key < $1.key }) {
            let qp = entry.qpCount > 0 ? String(cFormat: "%6.1f", Double(entry.qpSum) / Double(entry.qpCount)) : "     –"
            let count = String(entry.count), bytes = String(entry.bytes / entry.count)
            lines.append(type.paddingWithSpaces(toLength: 5)
                + String(repeating: " ", count: max(0, 6 - count.count)) + count
                + String(repeating: " ", count: max(0, 12 - bytes.count)) + bytes + "  " + qp)
        }
        return lines
    }

    /// Each distinct warning once (an encoder repeats its parameter sets before every keyframe), with the first
    /// NAL unit that carried it.
    static func warningLines(_ warnings: [Warning]) -> [String] {
        var seen = Set<String>()
        var lines: [String] = []
        for warning in warnings {
            let text = "\(warning.structure): \(warning.warning)"
            guard seen.insert(text).inserted else { continue }
            lines.append("warning: " + (warning.nalUnit.map { "NAL unit \($0) " } ?? "") + text)
        }
        return lines
    }

    /// A profile as the --profile flag spells it: the case name in kebab case (constrainedBaseline →
    /// constrained-baseline, high444Predictive → high444-predictive).
    static func flagSpelling(_ profile: H264Profile) -> String {
        var spelling = ""
        for character in "\(profile)" {
            if character.isUppercase {
                spelling += "-" + character.lowercased()
            } else {
                spelling.append(character)
            }
        }
        return spelling
    }
}
