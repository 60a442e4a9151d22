import Bitstream
import RTPOut

/// One second of 720p30 H.264 at 2 Mb/s, shaped like x264 zerolatency output with two slice threads (the same shape
/// as BitstreamBenchmarks' workload): an IDR access unit (AUD, SPS, PPS, SEI, two 24 KB slices) and 29 P access
/// units (AUD, two ~3.6 KB slices). Payload bytes are synthetic; only sizes and NAL unit types matter to RTP.
enum Workload {
    static func payload(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) | 0x01 }
    }

    /// x264 (core 164) SPS of 1280x720 constrained baseline, level 3.1, with VUI; `00 00 03` emulation prevention
    /// inside. Made by `ffmpeg -f lavfi -i testsrc2=size=1280x720:rate=30 -c:v libx264 -preset ultrafast
    /// -tune zerolatency` (bench/scripts/compare.py's send input).
    static let baselineSPS: [UInt8] = [
        0x67, 0x42, 0xC0, 0x1F, 0xDA, 0x01, 0x40, 0x16, 0xEC, 0x04, 0x40, 0x00, 0x00, 0x03, 0x00, 0x40,
        0x00, 0x00, 0x0F, 0x23, 0xC6, 0x0C, 0xA8,
    ]
    /// The same with `-preset veryfast -profile:v high`: High, level 3.1, VUI.
    static let highSPS: [UInt8] = [
        0x67, 0x64, 0x00, 0x1F, 0xAC, 0xB4, 0x02, 0x80, 0x2D, 0xD8, 0x08, 0x80, 0x00, 0x00, 0x03, 0x00,
        0x80, 0x00, 0x00, 0x1E, 0x47, 0x8C, 0x19, 0x50,
    ]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    /// NAL units (no start codes) of each access unit.
    static let accessUnits: [[[UInt8]]] = (0..<30).map { index in
        var nalUnits: [[UInt8]] = [[0x09, 0xF0]]
        if index == 0 {
            nalUnits += [baselineSPS, pps, [0x06] + payload(600, seed: 3)]
            nalUnits += [[0x65] + payload(24_000, seed: 4), [0x65] + payload(24_000, seed: 5)]
        } else {
            nalUnits += [[0x41] + payload(3_600 + index, seed: 6), [0x41] + payload(3_500 - index, seed: 7)]
        }
        return nalUnits
    }

    /// The same as the payloader takes them: slices of the NAL units, made once.
    static let accessUnitSlices: [[ArraySlice<UInt8>]] = accessUnits.map { $0.map { $0[...] } }

    /// The same as `CodedAccessUnit`s (Annex-B, NAL unit ranges found once, 1/30 s apart), as the sender takes them.
    static let codedAccessUnits: [CodedAccessUnit] = accessUnits.enumerated().map { index, nalUnits in
        CodedAccessUnit(joiningAnnexB: nalUnits, codec: .h264, isKeyframe: index == 0,
                        presentationTime: MediaTime(value: Int64(index), timescale: 30))
    }

    /// The same second as HEVC, shaped like x265 ultrafast/zerolatency output with two slice segments per picture:
    /// VPS, SPS, PPS and a prefix SEI before two 24 KB IDR_W_RADL slices, then 29 pictures of two TRAIL_R slices.
    /// Two-byte NAL unit headers (type << 1, TID 1); payload bytes synthetic as above.
    static let hevcAccessUnitSlices: [[ArraySlice<UInt8>]] = (0..<30).map { index in
        let header = { (type: UInt8) in [type << 1, 0x01] }
        var nalUnits: [[UInt8]] = []
        if index == 0 {
            nalUnits += [header(32) + payload(22, seed: 1), header(33) + payload(38, seed: 2), header(34) + payload(4, seed: 3)]
            nalUnits += [header(39) + payload(600, seed: 3)]
            nalUnits += [header(19) + payload(24_000, seed: 4), header(19) + payload(24_000, seed: 5)]
        } else {
            nalUnits += [header(1) + payload(3_600 + index, seed: 6), header(1) + payload(3_500 - index, seed: 7)]
        }
        return nalUnits.map { $0[...] }
    }

    /// The RTP packets (header included) of the whole second, sequence numbers from 1000, as a receiver gets them.
    static let packets: [[UInt8]] = {
        var packets: [[UInt8]] = []
        let packetizer = try! H264Packetizer(
            payloader: try! H264Payloader(), payloadType: 96, ssrc: 0x1234_5678, sequencer: RTPSequencer(initial: 1000))
        for (index, unit) in accessUnitSlices.enumerated() {
            try! packetizer.packetize(unit, timestamp: UInt32(index * 3000)) { packet, _, _ in
                packets.append(Array(packet))
            }
        }
        return packets
    }()

    /// A sender's compound report (RFC 3550 §6.1): SR with one report block, an RR for a second local source, and
    /// SDES CNAME.
    static let reports: [RTCPPacket] = [
        .senderReport(SenderReport(
            ssrc: 0x1234_5678, ntpTime: NTPTime(seconds: 3_900_000_000, fraction: 0x8000_0000), rtpTimestamp: 90_000,
            packetCount: 230, octetCount: 250_000,
            reports: [ReportBlock(ssrc: 0x9ABC_DEF0, fractionLost: 3, cumulativeLost: 12,
                                  extendedHighestSequenceNumber: 0x1_0400, jitter: 150,
                                  lastSenderReport: 0x0001_8000, delaySinceLastSenderReport: 0x0000_4000)])),
        .receiverReport(ReceiverReport(ssrc: 0x1234_5679, reports: [ReportBlock(ssrc: 0x9ABC_DEF1, jitter: 90)])),
        .sourceDescription(.cname(ssrc: 0x1234_5678, "rtenc@bench-host")),
    ]

    /// A receiver's feedback compound (RFC 4585 §3.1 requires RR + SDES in front): RR, SDES, PLI, generic NACK of
    /// 20 packets, REMB.
    static let feedback: [RTCPPacket] = [
        .receiverReport(ReceiverReport(ssrc: 0x9ABC_DEF0, reports: [ReportBlock(ssrc: 0x1234_5678, fractionLost: 5)])),
        .sourceDescription(.cname(ssrc: 0x9ABC_DEF0, "receiver@bench-host")),
        .pictureLossIndication(PictureLossIndication(senderSSRC: 0x9ABC_DEF0, mediaSSRC: 0x1234_5678)),
        .genericNACK(GenericNACK(senderSSRC: 0x9ABC_DEF0, mediaSSRC: 0x1234_5678,
                                 lost: [1000, 1001, 1003, 1010, 1020, 1021, 1022, 1040] + Array(1100...1111))),
        .receiverEstimatedMaximumBitrate(ReceiverEstimatedMaximumBitrate(
            senderSSRC: 0x9ABC_DEF0, bitrate: 1_500_000, ssrcs: [0x1234_5678])),
    ]

    static let reportBytes: [UInt8] = try! RTCPCompound.marshal(reports)
    static let feedbackBytes: [UInt8] = try! RTCPCompound.marshal(feedback)
}
