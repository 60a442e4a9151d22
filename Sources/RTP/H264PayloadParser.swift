import Bitstream
/// One RTP payload of RFC 6184 read back into NAL units or a fragment. Slices of the input, no copies.
public enum H264Payload: Sendable, Equatable {
    /// A single NAL unit packet (§5.6).
    case single(ArraySlice<UInt8>)
    /// The NAL units of a STAP-A (§5.7.1).
    case aggregate([ArraySlice<UInt8>])
    /// One FU-A fragment (§5.8) with the rebuilt NAL unit header (F/NRI from the indicator, type from the FU header).
    case fragment(nalHeader: UInt8, start: Bool, end: Bool, data: ArraySlice<UInt8>)

    /// A STAP-A cannot hold more units than this many bytes allow; named to bound a hostile payload.
    static let maxUnitsPerAggregate = 1024

    /// Strict parse. Rejects: an empty payload, STAP-A with a zero-size unit, a truncated unit or a nested
    /// aggregation/fragment, an FU with S and E both set (§5.8) or a payload-only type inside, and — as unsupported —
    /// STAP-B, MTAP16/24 and FU-B (interleaved mode).
    public init(parsing payload: ArraySlice<UInt8>) throws(RTPError) {
        var reader = ByteReader(payload)
        let header = try reader.readUInt8("RTP payload NAL header")
        let type = NALUnitHeader(header).nalUnitType
        switch type {
        case _ where (1 ... 23).contains(type.rawValue):
            self = .single(payload)
        case .stapA:
            var units: [ArraySlice<UInt8>] = []
            guard !reader.isEmpty else { throw .make(.truncated, "STAP-A without any NAL unit", offset: reader.offset) }
            while !reader.isEmpty {
                guard units.count < Self.maxUnitsPerAggregate else {
                    throw .make(.limitExceeded, "more than \(Self.maxUnitsPerAggregate) units in a STAP-A", offset: reader.offset)
                }
                let sizeOffset = reader.offset
                let size = try reader.readUInt16("STAP-A NAL unit size")
                guard size > 0 else { throw .make(.malformedPayload, "zero-size NAL unit in STAP-A", offset: sizeOffset) }
                let unit = try reader.readBytes(Int(size), "STAP-A NAL unit")
                let innerType = NALUnitHeader(unit[unit.startIndex]).nalUnitType.rawValue
                guard innerType != 0, innerType < NALUnitType.stapA.rawValue else {
                    throw .make(.malformedPayload, "NAL unit type \(innerType) nested in a STAP-A", offset: sizeOffset + 2)
                }
                units.append(unit)
            }
            self = .aggregate(units)
        case .fuA:
            let fuHeader = try reader.readUInt8("FU header")
            let start = fuHeader & 0x80 != 0
            let end = fuHeader & 0x40 != 0
            guard !(start && end) else { throw .make(.malformedPayload, "FU-A with both start and end bits set", offset: 1) }
            let innerType = NALUnitHeader(fuHeader).nalUnitType.rawValue  // the FU header's Type: same low 5 bits
            guard innerType != 0, innerType < NALUnitType.stapA.rawValue else {
                throw .make(.malformedPayload, "FU-A carrying NAL unit type \(innerType)", offset: 1)
            }
            self = .fragment(nalHeader: header & 0xE0 | innerType, start: start, end: end, data: reader.remaining)
        case .stapB, .mtap16, .mtap24, .fuB:
            throw .make(.unsupported, "payload type \(type.rawValue) (STAP-B/MTAP/FU-B) needs interleaved mode, which is not supported", offset: 0)
        default:
            throw .make(.malformedPayload, "reserved NAL unit type \(type.rawValue) in RTP payload", offset: 0)
        }
    }
}

extension H264Payload {
    /// The types of the NAL units that begin in this payload: a single unit's, each aggregated unit's, a first
    /// fragment's (none for later fragments).
    public var startingNALUnitTypes: [UInt8] {
        switch self {
        case .single(let unit): unit.first.map { [NALUnitHeader($0).nalUnitType.rawValue] } ?? []
        case .aggregate(let units): units.compactMap { unit in unit.first.map { NALUnitHeader($0).nalUnitType.rawValue } }
        case .fragment(let header, let start, _, _): start ? [NALUnitHeader(header).nalUnitType.rawValue] : []
        }
    }
}
