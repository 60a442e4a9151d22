/// Namespace for the H.264 (ISO/IEC 14496-10, ITU-T H.264) syntax structures, so an `HEVC` namespace can sit beside
/// it with its own `SequenceParameterSet` and friends.
public enum H264 {}

extension H264 {
    /// The parameter sets seen so far, by id, as a decoder keeps them (§7.4.1.2.1: a set replaces the earlier one
    /// with the same id).
    public struct ParameterSets: Sendable {
        public var sequenceParameterSets: [Int: SequenceParameterSet] = [:]
        public var pictureParameterSets: [Int: PictureParameterSet] = [:]

        public init() {}

        /// Parses an SPS or PPS NAL unit (header included) and stores it; other NAL unit types are ignored.
        /// Returns whether the NAL unit was a parameter set.
        @discardableResult
        public mutating func update(nalUnit: ArraySlice<UInt8>) throws(BitstreamError) -> Bool {
            guard let first = nalUnit.first else { return false }
            switch NALUnitHeader(first).nalUnitType {
            case .sps:
                let sps = try SequenceParameterSet(nalUnit: nalUnit)
                sequenceParameterSets[sps.seqParameterSetId] = sps
                return true
            case .pps:
                let pps = try PictureParameterSet(nalUnit: nalUnit, sequenceParameterSets: sequenceParameterSets)
                pictureParameterSets[pps.picParameterSetId] = pps
                return true
            default:
                return false
            }
        }
    }
}

extension BitstreamError {
    /// Checks the NAL unit type before a parser spends time on the payload.
    static func expect(
        _ type: NALUnitType, in header: NALUnitHeader, file: String = #fileID, line: UInt = #line
    ) throws(BitstreamError) {
        guard header.nalUnitType == type else {
            throw .make(.invalidValue,
                "expected nal_unit_type \(type.rawValue), got \(header.nalUnitType.rawValue)", offset: 0,
                file: file, line: line)
        }
    }
}
