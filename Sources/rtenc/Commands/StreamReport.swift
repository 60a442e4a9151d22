import Bitstream
import Foundation

/// What `rtenc inspect` reports about an Annex-B stream.
struct StreamReport: Encodable {
    struct NALUnit: Encodable {
        var offset: Int
        var size: Int
        var nalUnitType: UInt8
        var typeName: String
        var nalRefIdc: UInt8

        enum CodingKeys: String, CodingKey {
            case offset, size
            case nalUnitType = "nal_unit_type"
            case typeName = "type_name"
            case nalRefIdc = "nal_ref_idc"
        }
    }

    var nalUnits: [NALUnit] = []

    enum CodingKeys: String, CodingKey {
        case nalUnits = "nal_units"
    }

    init(annexB bytes: [UInt8]) throws(BitstreamError) {
        let whole = bytes[...]
        try AnnexB.forEachNALUnit(in: whole) { nal throws(BitstreamError) in
            guard let first = nal.first else { return }
            let header = NALUnitHeader(first)
            nalUnits.append(NALUnit(
                offset: nal.startIndex, size: nal.count, nalUnitType: header.nalUnitType.rawValue,
                typeName: header.nalUnitType.description, nalRefIdc: header.nalRefIdc))
        }
        if nalUnits.isEmpty {
            throw BitstreamError.invalidValue("no NAL units")
        }
    }

    func summaryTable(name: String) -> String {
        var counts: [String: Int] = [:]
        for nal in nalUnits { counts[nal.typeName, default: 0] += 1 }
        var text = "\(name): \(nalUnits.count) NAL units\n"
        for (type, count) in counts.sorted(by: { $0.key < $1.key }) {
            text += "  \(type.padding(toLength: 24, withPad: " ", startingAt: 0)) \(count)\n"
        }
        return text
    }
}
