import Bitstream
/// Puts the SPS and PPS (HEVC: VPS, SPS and PPS) a receiver knows in front of the access units that need them and came without: the first
/// one a decoder (or a file) gets, and every IDR whose own were lost — at the start of a stream they travel in the
/// first packet (a STAP-A), the one packet a receiver cannot tell is missing.
///
/// Known are the SDP's sprop-parameter-sets (RFC 6184 §8.1), replaced by the latest ones seen in band. They go in
/// front of a picture, not alone: libavcodec rejects a packet of parameter sets without one. Pure.
package struct ParameterSetPrimer: Sendable {
    /// Whose parameter sets: H.264's SPS and PPS, or HEVC's VPS, SPS and PPS.
    package let codec: VideoCodec
    /// The latest parameter set of each type, in `codec.parameterSetNALUnitTypes` order.
    private var known: [[UInt8]?]
    private var started = false

    package var videoParameterSet: [UInt8]? { codec == .hevc ? known[0] : nil }
    package var sequenceParameterSet: [UInt8]? { known[known.count - 2] }
    package var pictureParameterSet: [UInt8]? { known[known.count - 1] }

    /// `parameterSets`: NAL units known in advance (sprop-parameter-sets; HEVC's sprop-vps/sps/pps); anything but
    /// parameter sets is ignored.
    package init(codec: VideoCodec = .h264, parameterSets: [[UInt8]] = []) {
        self.codec = codec
        known = Array(repeating: nil, count: codec.parameterSetNALUnitTypes.count)
        remember(parameterSets)
    }

    /// The access unit as a decoder should get it: with the known parameter sets it lacks in front if it is the
    /// first one or a keyframe (IDR; HEVC: IRAP), else unchanged.
    package mutating func prime(_ unit: ReceivedAccessUnit) -> ReceivedAccessUnit {
        let types = unit.nalUnits.map { $0.first.map { codec.nalUnitType(firstByte: $0) } ?? 0 }
        let missing = missingParameterSets(for: unit, nalUnitTypes: types)
        guard !missing.isEmpty else { return unit }
        return ReceivedAccessUnit(codec: unit.codec, timestamp: unit.timestamp, nalUnits: missing + unit.nalUnits)
    }

    /// The known parameter sets `unit` lacks and a decoder needs in front of it (it is the first one or a
    /// keyframe), given the types of its NAL units (found once by the caller); remembers the parameter sets it
    /// carries.
    package mutating func missingParameterSets(for unit: ReceivedAccessUnit, nalUnitTypes types: [UInt8]) -> [[UInt8]] {
        defer { started = true }
        remember(unit.nalUnits)
        guard !started || types.contains(where: codec.isRandomAccessSlice(nalUnitType:)) else { return [] }
        return zip(codec.parameterSetNALUnitTypes, known).compactMap { type, unit in types.contains(type) ? nil : unit }
    }

    private mutating func remember(_ units: [[UInt8]]) {
        let types = codec.parameterSetNALUnitTypes
        for unit in units {
            guard let first = unit.first, let index = types.firstIndex(of: codec.nalUnitType(firstByte: first)) else { continue }
            known[index] = unit
        }
    }
}
