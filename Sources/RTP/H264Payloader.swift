import Bitstream

/// RFC 6184 payloader, the first `RTPPayloader`: splits one whole access unit (a list of NAL units without start codes) into RTP payloads.
///
/// Each payload is written either straight into the room a caller lends (`payload(_:into:)`: the sender's queue slot)
/// or into one reusable buffer owned by the payloader, after `headroom` free bytes where the caller writes the RTP
/// header, and handed to `emit` — so steady-state packetization allocates nothing.
/// Sequence numbers, SSRC and timestamps are not its business (see `H264Packetizer` and `RTPSequencer`).
public final class H264Payloader: NALUnitSplittingPayloader {
    public let configuration: H264PayloaderConfiguration
    /// Last SPS and PPS seen in the stream or given at creation; inserted before IDRs that lack them.
    public var sequenceParameterSet: [UInt8]? { parameterSets.stored[0] }
    public var pictureParameterSet: [UInt8]? { parameterSets.stored[1] }

    private var parameterSets: ParameterSetMemory
    private let buffer: PayloadBuffer
    /// The NAL units of the access unit being sent (input plus inserted parameter sets); capacity reused.
    private var units: [ArraySlice<UInt8>] = []

    public init(
        configuration: H264PayloaderConfiguration = .init(), headroom: Int = RTPHeader.fixedSize,
        sequenceParameterSet: [UInt8]? = nil, pictureParameterSet: [UInt8]? = nil
    ) throws(RTPError) {
        buffer = try PayloadBuffer(
            headroom: headroom, maxPayloadSize: configuration.maxPayloadSize,
            allowed: H264PayloaderConfiguration.minMaxPayloadSize ... H264PayloaderConfiguration.maxMaxPayloadSize)
        self.configuration = configuration
        parameterSets = ParameterSetMemory([sequenceParameterSet, pictureParameterSet])
        units.reserveCapacity(64)
    }

    public var codec: VideoCodec { .h264 }
    public var clockRate: Int64 { RTPClock.h264ClockRate }
    public var maxPayloadSize: Int { configuration.maxPayloadSize }
    package var ownBuffer: OwnBufferDestination { buffer.destination }

    /// Both forms of `payload` (`NALUnitSplittingPayloader`): each packet written into `destination`, `committed`
    /// told after each. The marker goes on the access unit's last packet (RFC 6184 §5.1).
    package func split(
        _ nalUnits: [ArraySlice<UInt8>], into destination: inout some RTPPayloadDestination, committed: PayloadCommitted
    ) throws(RTPError) {
        try collectUnits(nalUnits)
        defer { units.removeAll(keepingCapacity: true) }
        let maxPayload = configuration.maxPayloadSize
        if configuration.packetizationMode == .singleNALUnit {
            for (index, unit) in units.enumerated() {
                guard unit.count <= maxPayload else {
                    throw RTPError(
                        code: .nalUnitTooLarge,
                        reason: "NAL unit of \(unit.count) bytes exceeds the \(maxPayload)-byte payload in packetization-mode 0: "
                            + "limit the slice size (x264 slice-max-size) or use packetization-mode 1")
                }
                destination.writeSingle(unit, isLast: index == units.count - 1, committed)
            }
            return
        }
        let packetization = NALUnitPacketization(
            aggregation: configuration.aggregation, maxPayloadSize: maxPayload, aggregationHeaderSize: 1)
        packetization.plan(units, isVCL: { NALUnitHeader($0[$0.startIndex]).nalUnitType.isVCL }) { packet in
            switch packet {
            case .single(let index): destination.writeSingle(units[index], isLast: index == units.count - 1, committed)
            case .aggregate(let range): writeAggregate(range, into: &destination, committed)
            case .fragments(let index): writeFragments(units[index], isLast: index == units.count - 1, into: &destination, committed)
            }
        }
    }

    /// Validates the input, remembers parameter sets, and inserts them before an IDR that lacks them.
    private func collectUnits(_ nalUnits: [ArraySlice<UInt8>]) throws(RTPError) {
        var hasSPS = false, hasPPS = false, hasIDR = false
        for unit in nalUnits {
            guard let header = unit.first else { throw .make(.invalidValue, "empty NAL unit in access unit") }
            let type = NALUnitHeader(header).nalUnitType
            guard type.rawValue != 0, type.rawValue < NALUnitType.stapA.rawValue else {
                throw .make(.invalidValue, "NAL unit type \(type.rawValue) cannot appear in an H.264 stream given to the payloader")
            }
            switch type {
            case .sps:
                hasSPS = true
                parameterSets.remember(unit, slot: 0)
            case .pps:
                hasPPS = true
                parameterSets.remember(unit, slot: 1)
            case .idr: hasIDR = true
            default: break
            }
        }
        parameterSets.append(
            nalUnits, to: &units, insert: configuration.insertParameterSetsBeforeIDR && hasIDR && !(hasSPS && hasPPS),
            present: (hasSPS ? 1 : 0) | (hasPPS ? 2 : 0),
            isDelimiter: { NALUnitHeader($0[$0.startIndex]).nalUnitType == .accessUnitDelimiter },
            slot: { unit in
                switch NALUnitHeader(unit[unit.startIndex]).nalUnitType {
                case .sps: 0
                case .pps: 1
                default: nil
                }
            })
    }

    /// STAP-A (RFC 6184 §5.7.1):
    ///
    ///     |STAP-A NAL HDR |         NALU 1 Size           | NALU 1 HDR    |
    ///     |                         NALU 1 Data                           |
    ///     |               | NALU 2 Size                   | NALU 2 HDR    |
    ///
    /// F is set if any aggregated F is set; NRI is the maximum NRI of the aggregated units.
    private func writeAggregate(_ range: Range<Int>, into destination: inout some RTPPayloadDestination, _ committed: PayloadCommitted) {
        var forbidden = false
        var nri: UInt8 = 0
        for i in range {
            let header = NALUnitHeader(units[i][units[i].startIndex])
            forbidden = forbidden || header.forbiddenZeroBit
            nri = max(nri, header.nalRefIdc)
        }
        var writer = ByteWriter(destination.nextPayload())
        writer.write(NALUnitHeader(forbiddenZeroBit: forbidden, nalRefIdc: nri, nalUnitType: .stapA).byte)
        for i in range {
            writer.write(UInt16(units[i].count))  // ≤ maxPayloadSize, checked by aggregationEnd
            writer.write(bytes: units[i])
        }
        destination.commit(writer, isLast: range.upperBound == units.count, committed)
    }

    /// FU-A (RFC 6184 §5.8):
    ///
    ///     | FU indicator  |   FU header   |                               |
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               |
    ///     |F|NRI|  Type=28|S|E|R|  Type   |        FU payload             |
    ///
    /// The NAL header byte is not sent; its F/NRI go in the indicator and its type in the FU header. Fragments are of
    /// equal size ±1 byte (as libwebrtc), so the last packet is not a runt.
    private func writeFragments(
        _ unit: ArraySlice<UInt8>, isLast: Bool, into destination: inout some RTPPayloadDestination, _ committed: PayloadCommitted
    ) {
        let header = unit[unit.startIndex]
        for fragment in EqualFragments(unit.dropFirst(), maxFragment: configuration.maxPayloadSize - 2) {
            var writer = ByteWriter(destination.nextPayload())
            writer.write(header & 0xE0 | NALUnitType.fuA.rawValue)  // F and NRI kept, type replaced
            writer.write((fragment.isFirst ? 0x80 : 0) | (fragment.isLast ? 0x40 : 0) | NALUnitHeader(header).nalUnitType.rawValue)
            writer.write(bytes: fragment.data)
            destination.commit(writer, isLast: isLast && fragment.isLast, committed)
        }
    }
}
