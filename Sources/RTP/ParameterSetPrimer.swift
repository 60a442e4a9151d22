import Bitstream
/// Puts the SPS and PPS a receiver knows in front of the access units that need them and came without: the first
/// one a decoder (or a file) gets, and every IDR whose own were lost — at the start of a stream they travel in the
/// first packet (a STAP-A), the one packet a receiver cannot tell is missing.
///
/// Known are the SDP's sprop-parameter-sets (RFC 6184 §8.1), replaced by the latest ones seen in band. They go in
/// front of a picture, not alone: libavcodec rejects a packet of parameter sets without one. Pure.
public struct ParameterSetPrimer: Sendable {
    public private(set) var sequenceParameterSet: [UInt8]?
    public private(set) var pictureParameterSet: [UInt8]?
    private var started = false

    /// `parameterSets`: NAL units known in advance (sprop-parameter-sets); anything but SPS and PPS is ignored.
    public init(parameterSets: [[UInt8]] = []) {
        remember(parameterSets)
    }

    /// The access unit as a decoder should get it: with the known SPS/PPS it lacks in front if it is the first one
    /// or an IDR, else unchanged.
    public mutating func prime(_ unit: ReceivedAccessUnit) -> ReceivedAccessUnit {
        let types = unit.nalUnits.map { $0.first.map { NALUnitHeader($0).nalUnitType.rawValue } ?? 0 }
        let missing = missingParameterSets(for: unit, nalUnitTypes: types)
        guard !missing.isEmpty else { return unit }
        return ReceivedAccessUnit(codec: unit.codec, timestamp: unit.timestamp, nalUnits: missing + unit.nalUnits)
    }

    /// The known SPS/PPS `unit` lacks and a decoder needs in front of it (it is the first one or an IDR), given the
    /// types of its NAL units (found once by the caller); remembers the parameter sets it carries.
    public mutating func missingParameterSets(for unit: ReceivedAccessUnit, nalUnitTypes types: [UInt8]) -> [[UInt8]] {
        defer { started = true }
        remember(unit.nalUnits)
        guard !started || types.contains(NALUnitType.idr.rawValue) else { return [] }
        var missing: [[UInt8]] = []
        if !types.contains(NALUnitType.sps.rawValue), let sequenceParameterSet { missing.append(sequenceParameterSet) }
        if !types.contains(NALUnitType.pps.rawValue), let pictureParameterSet { missing.append(pictureParameterSet) }
        return missing
    }

    private mutating func remember(_ units: [[UInt8]]) {
        for unit in units {
            switch unit.first.map({ NALUnitHeader($0).nalUnitType }) {
            case .sps?: sequenceParameterSet = unit
            case .pps?: pictureParameterSet = unit
            default: break
            }
        }
    }
}
