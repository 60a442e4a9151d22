import Bitstream

/// RFC 7798 payloader: splits one whole HEVC access unit (NAL units without start codes) into RTP payloads — single
/// NAL unit packets (§4.4.1), aggregation packets (AP, §4.4.2) and fragmentation units (FU, §4.4.3), without DONL.
///
/// As `H264Payloader`: each payload is written straight into the room a caller lends (`payload(_:into:)`), or into one
/// reusable buffer owned by the payloader, after `headroom` free bytes for the RTP header, and handed to `emit` —
/// steady-state packetization allocates nothing.
public final class H265Payloader: NALUnitSplittingPayloader {
    public let configuration: H265PayloaderConfiguration
    /// Last VPS, SPS and PPS seen in the stream or given at creation; inserted before IRAP pictures that lack them.
    public var videoParameterSet: [UInt8]? { parameterSets.stored[0] }
    public var sequenceParameterSet: [UInt8]? { parameterSets.stored[1] }
    public var pictureParameterSet: [UInt8]? { parameterSets.stored[2] }

    private var parameterSets: ParameterSetMemory
    private let buffer: PayloadBuffer
    /// The NAL units of the access unit being sent (input plus inserted parameter sets); capacity reused.
    private var units: [ArraySlice<UInt8>] = []

    public init(
        configuration: H265PayloaderConfiguration = .init(), headroom: Int = RTPHeader.fixedSize,
        videoParameterSet: [UInt8]? = nil, sequenceParameterSet: [UInt8]? = nil, pictureParameterSet: [UInt8]? = nil
    ) throws(RTPError) {
        buffer = try PayloadBuffer(
            headroom: headroom, maxPayloadSize: configuration.maxPayloadSize,
            allowed: H265PayloaderConfiguration.minMaxPayloadSize ... H265PayloaderConfiguration.maxMaxPayloadSize)
        self.configuration = configuration
        parameterSets = ParameterSetMemory([videoParameterSet, sequenceParameterSet, pictureParameterSet])
        units.reserveCapacity(64)
    }

    public var codec: VideoCodec { .hevc }
    /// RFC 7798 §7.1: the RTP clock rate is 90 kHz.
    public var clockRate: Int64 { RTPClock.h264ClockRate }
    public var maxPayloadSize: Int { configuration.maxPayloadSize }
    package var ownBuffer: OwnBufferDestination { buffer.destination }

    /// Both forms of `payload` (`NALUnitSplittingPayloader`): each packet written into `destination`, `committed`
    /// told after each. The marker goes on the access unit's last packet (RFC 7798 §4.1).
    /// - Throws: `.invalidValue` for a NAL unit shorter than its 2-byte header or of a type 48…63 (RTP packet types
    ///   and unspecified ones, which a stream handed to the payloader cannot hold).
    package func split(
        _ nalUnits: [ArraySlice<UInt8>], into destination: inout some RTPPayloadDestination, committed: PayloadCommitted
    ) throws(RTPError) {
        try collectUnits(nalUnits)
        defer { units.removeAll(keepingCapacity: true) }
        let packetization = NALUnitPacketization(
            aggregation: configuration.aggregation, maxPayloadSize: configuration.maxPayloadSize,
            aggregationHeaderSize: HEVC.NALUnitHeader.size)
        packetization.plan(units, isVCL: { Self.type(of: $0).isVCL }) { packet in
            switch packet {
            case .single(let index): destination.writeSingle(units[index], isLast: index == units.count - 1, committed)
            case .aggregate(let range): writeAggregate(range, into: &destination, committed)
            case .fragments(let index): writeFragments(units[index], isLast: index == units.count - 1, into: &destination, committed)
            }
        }
    }

    private static func type(of unit: ArraySlice<UInt8>) -> HEVC.NALUnitType {
        HEVC.NALUnitType(rawValue: (unit[unit.startIndex] >> 1) & 0x3F)
    }

    /// Validates the input, remembers parameter sets, and inserts them before an IRAP picture that lacks them.
    private func collectUnits(_ nalUnits: [ArraySlice<UInt8>]) throws(RTPError) {
        var present: UInt8 = 0  // bit 0 VPS, 1 SPS, 2 PPS
        var hasIRAP = false
        for unit in nalUnits {
            guard unit.count >= HEVC.NALUnitHeader.size else {
                throw .make(.invalidValue, "NAL unit of \(unit.count) bytes is shorter than the 2-byte H.265 NAL unit header")
            }
            let type = Self.type(of: unit)
            guard type.rawValue < HEVC.NALUnitType.aggregationPacket.rawValue else {
                throw .make(.invalidValue, "NAL unit type \(type.rawValue) cannot appear in an H.265 stream given to the payloader")
            }
            if type.isParameterSet {
                let slot = Int(type.rawValue - HEVC.NALUnitType.vps.rawValue)
                present |= 1 << slot
                parameterSets.remember(unit, slot: slot)
            }
            hasIRAP = hasIRAP || type.isIRAP
        }
        parameterSets.append(
            nalUnits, to: &units, insert: configuration.insertParameterSetsBeforeIRAP && hasIRAP && present != 0b111,
            present: present, isDelimiter: { Self.type(of: $0) == .accessUnitDelimiter },
            slot: { Self.type(of: $0).isParameterSet ? Int(Self.type(of: $0).rawValue - HEVC.NALUnitType.vps.rawValue) : nil })
    }

    /// AP (RFC 7798 §4.4.2), without DONL:
    ///
    ///      0                   1                   2                   3
    ///     |    PayloadHdr (Type=48)       |         NALU 1 Size           |
    ///     |          NALU 1 HDR           |                               |
    ///     |         NALU 1 Data           |            NALU 2 Size        |
    ///     |          NALU 2 HDR           |         NALU 2 Data  ...      |
    ///
    /// F is set if any aggregated F is set; LayerId and TID are the lowest of the aggregated units'.
    private func writeAggregate(_ range: Range<Int>, into destination: inout some RTPPayloadDestination, _ committed: PayloadCommitted) {
        var forbidden = false
        var layerId: UInt8 = 63
        var temporalIdPlus1: UInt8 = 7
        for i in range {
            let header = HEVC.NALUnitHeader(units[i][units[i].startIndex], units[i][units[i].startIndex + 1])
            forbidden = forbidden || header.forbiddenZeroBit
            layerId = min(layerId, header.nuhLayerId)
            temporalIdPlus1 = min(temporalIdPlus1, header.nuhTemporalIdPlus1)
        }
        let payloadHeader = HEVC.NALUnitHeader(
            forbiddenZeroBit: forbidden, nalUnitType: .aggregationPacket, nuhLayerId: layerId,
            nuhTemporalIdPlus1: temporalIdPlus1
        ).bytes
        var writer = ByteWriter(destination.nextPayload())
        writer.write(payloadHeader.0)
        writer.write(payloadHeader.1)
        for i in range {
            writer.write(UInt16(units[i].count))  // ≤ maxPayloadSize ≤ 65 495: NALUnitPacketization aggregates only units that fit
            writer.write(bytes: units[i])
        }
        destination.commit(writer, isLast: range.upperBound == units.count, committed)
    }

    /// FU (RFC 7798 §4.4.3), without DONL:
    ///
    ///      0                   1                   2                   3
    ///     |    PayloadHdr (Type=49)       |   FU header   |               |
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+               |
    ///                                     |S|E|  FuType   |  FU payload   |
    ///
    /// The fragmented unit's 2-byte header is not sent: F, LayerId and TID stay in the payload header, its type goes
    /// in FuType. Fragments are of equal size ±1 byte, as for H.264.
    private func writeFragments(
        _ unit: ArraySlice<UInt8>, isLast: Bool, into destination: inout some RTPPayloadDestination, _ committed: PayloadCommitted
    ) {
        let first = unit[unit.startIndex]
        let second = unit[unit.startIndex + 1]
        let fuType = (first >> 1) & 0x3F
        let maxFragment = configuration.maxPayloadSize - HEVC.NALUnitHeader.size - 1
        for fragment in EqualFragments(unit.dropFirst(HEVC.NALUnitHeader.size), maxFragment: maxFragment) {
            var writer = ByteWriter(destination.nextPayload())
            writer.write(first & 0x81 | HEVC.NALUnitType.fragmentationUnit.rawValue << 1)  // F and LayerId's top bit kept
            writer.write(second)  // LayerId's low bits and TID
            writer.write((fragment.isFirst ? 0x80 : 0) | (fragment.isLast ? 0x40 : 0) | fuType)
            writer.write(bytes: fragment.data)
            destination.commit(writer, isLast: isLast && fragment.isLast, committed)
        }
    }
}
