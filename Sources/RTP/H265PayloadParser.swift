import Bitstream

/// One RTP payload of RFC 7798 (HEVC, no DONL) read back into NAL units or a fragment. Slices of the input; only a
/// single NAL unit inside a PACI is copied (its header has to be rebuilt in front of it).
public enum H265Payload: Sendable, Equatable {
    /// A single NAL unit packet (§4.4.1): the payload is the NAL unit, header included.
    case single(ArraySlice<UInt8>)
    /// The NAL units of an aggregation packet (§4.4.2).
    case aggregate([ArraySlice<UInt8>])
    /// One fragmentation unit (§4.4.3), with the fragmented unit's rebuilt header (F, LayerId and TID from the payload
    /// header, the type from FuType).
    case fragment(nalHeader: HEVC.NALUnitHeader, start: Bool, end: Bool, data: ArraySlice<UInt8>)

    /// Bounds an AP: each unit takes at least 4 bytes (size + header), so a 64 KiB payload holds fewer than this.
    static let maxUnitsPerAggregate = 16_384

    /// Strict parse, no DONL (sprop-max-don-diff = 0, which `ReceivedSessionDescription` insists on). Rejects: a
    /// payload shorter than its 2-byte header, an AP with a unit shorter than a NAL unit header, a truncated unit or
    /// a nested AP/FU/PACI, an FU with S and E both set (§4.4.3) or FuType 48…63, a PACI inside a PACI, and the
    /// unspecified types 51…63. A PACI (§4.4.4) is unwrapped: its header extension is skipped and the packet inside
    /// read with the payload header it stands for (Type = cType). An AP with one unit is accepted (RFC 7798 says at
    /// least two; FFmpeg and GStreamer take one, and nothing is lost).
    public init(parsing payload: ArraySlice<UInt8>) throws(RTPError) {
        var reader = ByteReader(payload)
        let first = try reader.readUInt8("RTP payload header")
        let second = try reader.readUInt8("RTP payload header")
        self = try Self(header: HEVC.NALUnitHeader(first, second), body: reader, whole: payload)
    }

    /// Reads the body after a payload header; `whole` is the header and body as one slice where the input has them
    /// so (nil inside a PACI, where the header is rebuilt).
    private init(header: HEVC.NALUnitHeader, body: ByteReader, whole: ArraySlice<UInt8>?) throws(RTPError) {
        var reader = body
        let type = header.nalUnitType
        switch type.rawValue {
        case 0 ..< 48:
            if let whole {
                self = .single(whole)
            } else {
                let bytes = header.bytes
                self = .single(([bytes.0, bytes.1] + reader.remaining)[...])
            }
        case HEVC.NALUnitType.aggregationPacket.rawValue:
            var units: [ArraySlice<UInt8>] = []
            guard !reader.isEmpty else { throw .make(.truncated, "AP without any NAL unit", offset: reader.offset) }
            while !reader.isEmpty {
                guard units.count < Self.maxUnitsPerAggregate else {
                    throw .make(.limitExceeded, "more than \(Self.maxUnitsPerAggregate) units in an AP", offset: reader.offset)
                }
                let sizeOffset = reader.offset
                let size = Int(try reader.readUInt16("AP NAL unit size"))
                guard size >= HEVC.NALUnitHeader.size else {
                    throw .make(.malformedPayload, "AP NAL unit of \(size) bytes, shorter than its 2-byte header", offset: sizeOffset)
                }
                let unit = try reader.readBytes(size, "AP NAL unit")
                let innerType = (unit[unit.startIndex] >> 1) & 0x3F
                guard innerType < HEVC.NALUnitType.aggregationPacket.rawValue else {
                    throw .make(.malformedPayload, "NAL unit type \(innerType) nested in an AP", offset: sizeOffset + 2)
                }
                units.append(unit)
            }
            self = .aggregate(units)
        case HEVC.NALUnitType.fragmentationUnit.rawValue:
            let fuHeader = try reader.readUInt8("FU header")
            let start = fuHeader & 0x80 != 0
            let end = fuHeader & 0x40 != 0
            guard !(start && end) else { throw .make(.malformedPayload, "FU with both start and end bits set", offset: 2) }
            let fuType = HEVC.NALUnitType(rawValue: fuHeader & 0x3F)
            guard fuType.rawValue < HEVC.NALUnitType.aggregationPacket.rawValue else {
                throw .make(.malformedPayload, "FU carrying NAL unit type \(fuType.rawValue)", offset: 2)
            }
            var nalHeader = header
            nalHeader.nalUnitType = fuType
            self = .fragment(nalHeader: nalHeader, start: start, end: end, data: reader.remaining)
        case HEVC.NALUnitType.payloadContentInformation.rawValue:
            // |    PayloadHdr (Type=50)       |A|   cType   | PHSsize |F0..2|Y|
            // |        Payload Header Extension Structure (PHES)              |
            // |                  PACI payload                                 |
            let fields = try reader.readUInt16("PACI fields")
            let cType = UInt8(truncatingIfNeeded: fields >> 9) & 0x3F
            let headerExtensionSize = Int(fields >> 4) & 0x1F
            guard cType != HEVC.NALUnitType.payloadContentInformation.rawValue else {
                throw .make(.malformedPayload, "PACI inside a PACI", offset: 2)
            }
            try reader.skip(headerExtensionSize, "PACI header extension")
            var inner = header
            inner.nalUnitType = HEVC.NALUnitType(rawValue: cType)
            self = try Self(header: inner, body: reader, whole: nil)
        default:
            throw .make(.malformedPayload, "unspecified payload header type \(type.rawValue) in RTP payload", offset: 0)
        }
    }
}

extension H265Payload {
    /// The types of the NAL units that begin in this payload: a single unit's, each aggregated unit's, a first
    /// fragment's (none for later fragments).
    public var startingNALUnitTypes: [HEVC.NALUnitType] {
        let type = { (unit: ArraySlice<UInt8>) in HEVC.NALUnitType(rawValue: (unit[unit.startIndex] >> 1) & 0x3F) }
        switch self {
        case .single(let unit): return [type(unit)]
        case .aggregate(let units): return units.map(type)
        case .fragment(let header, let start, _, _): return start ? [header.nalUnitType] : []
        }
    }
}
