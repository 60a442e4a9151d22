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
        defer { started = true }
        let types = unit.nalUnits.compactMap { unit in unit.first.map { NALUnitHeader($0).nalUnitType.rawValue } }
        remember(unit.nalUnits)
        guard !started || types.contains(NALUnitType.idr.rawValue) else { return unit }
        var missing: [[UInt8]] = []
        if !types.contains(NALUnitType.sps.rawValue), let sequenceParameterSet { missing.append(sequenceParameterSet) }
        if !types.contains(NALUnitType.pps.rawValue), let pictureParameterSet { missing.append(pictureParameterSet) }
        guard !missing.isEmpty else { return unit }
        return ReceivedAccessUnit(codec: unit.codec, timestamp: unit.timestamp, nalUnits: missing + unit.nalUnits)
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
