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

    struct AccessUnit: Encodable {
        var index: Int
        /// Byte offset of the first NAL unit's first byte (after its start code).
        var offset: Int
        var unit: H264.AccessUnit

        enum CodingKeys: String, CodingKey { case index, offset }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(offset, forKey: .offset)
            try unit.encode(to: encoder)
        }
    }

    var nalUnits: [NALUnit] = []
    var accessUnits: [AccessUnit] = []
    var sequenceParameterSets: [H264.SequenceParameterSet] = []
    var pictureParameterSets: [H264.PictureParameterSet] = []

    enum CodingKeys: String, CodingKey {
        case nalUnits = "nal_units"
        case accessUnits = "access_units"
        case sequenceParameterSets = "sps"
        case pictureParameterSets = "pps"
    }

    /// Parses a whole Annex-B stream. Parameter sets that do not parse, and slices whose header does not parse
    /// for any reason but a parameter set the stream has not sent yet (a capture that starts mid-GOP), are errors.
    init(annexB bytes: [UInt8]) throws(BitstreamError) {
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
                sequenceParameterSets.append(try H264.SequenceParameterSet(nalUnit: nal))
            case .pps:
                pictureParameterSets.append(
                    try H264.PictureParameterSet(nalUnit: nal, sequenceParameterSets: parameterSets.sequenceParameterSets))
            default:
                break
            }
            _ = try parameterSets.update(nalUnit: nal)
            if let unit = splitter.append(nal) { try append(unit) }
        }
        if let unit = splitter.flush() { try append(unit) }
        if nalUnits.isEmpty {
            throw BitstreamError.invalidValue("no NAL units")
        }
    }

    private mutating func append(_ unit: H264.AccessUnit) throws(BitstreamError) {
        if let error = unit.sliceHeaderError, error.code != .missingParameterSet {
            throw error
        }
        accessUnits.append(AccessUnit(index: accessUnits.count, offset: unit.nalUnits.first?.startIndex ?? 0, unit: unit))
    }

    /// A few lines for people: stream geometry, then counts by picture type and the keyframe positions.
    func summaryTable(name: String) -> String {
        var lines: [String] = []
        if let sps = sequenceParameterSets.first {
            let fps = sps.fps.map { String(cFormat: "%.3g fps", $0) } ?? "fps not signalled"
            let profile = sps.profile.map { "\($0)" } ?? "profile_idc \(sps.profileIdc)"
            let level = sps.level.map { $0.name } ?? "level_idc \(sps.levelIdc)"
            lines.append("\(name): H.264 \(profile) @ \(level), \(sps.width)x\(sps.height), \(fps)")
        } else {
            lines.append("\(name): H.264, no SPS")
        }
        lines.append("\(accessUnits.count) access units, \(nalUnits.count) NAL units, "
            + "\(sequenceParameterSets.count) SPS, \(pictureParameterSets.count) PPS")
        var byType: [String: (count: Int, bytes: Int, qpSum: Int, qpCount: Int)] = [:]
        for au in accessUnits {
            let type = au.unit.isIDR ? "IDR" : (au.unit.primarySliceType?.name ?? "?")
            var entry = byType[type, default: (0, 0, 0, 0)]
            entry.count += 1
            entry.bytes += au.unit.byteCount
            if let qp = au.unit.qp { entry.qpSum += qp; entry.qpCount += 1 }
            byType[type] = entry
        }
        lines.append("type  count   avg bytes  avg QP")
        for (type, entry) in byType.sorted(by: { $0.key < $1.key }) {
            let qp = entry.qpCount > 0 ? String(cFormat: "%6.1f", Double(entry.qpSum) / Double(entry.qpCount)) : "     –"
            let count = String(entry.count), bytes = String(entry.bytes / entry.count)
            lines.append(type.paddingWithSpaces(toLength: 5)
                + String(repeating: " ", count: max(0, 6 - count.count)) + count
                + String(repeating: " ", count: max(0, 12 - bytes.count)) + bytes + "  " + qp)
        }
        let keyframes = accessUnits.filter { $0.unit.isIDR }.map { String($0.index) }
        lines.append("IDR at: " + (keyframes.isEmpty ? "none" : keyframes.joined(separator: ", ")))
        return lines.joined(separator: "\n") + "\n"
    }
}
