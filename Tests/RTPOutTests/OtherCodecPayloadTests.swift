import Bitstream
import Testing
@testable import RTP
@testable import RTPOut

/// `OtherCodecPayload`: H.265 payloads carrying parameter sets are recognised at an H.264 receiver; nothing an
/// H.264 sender puts on the wire is.
struct OtherCodecPayloadTests {
    @Test(arguments: [
        // RFC 7798 AP (type 48: 0x60 0x01), two aggregation units: VPS (0x40 0x01) and SPS (0x42 0x01), 16-bit sizes.
        ("H.265 AP: VPS, SPS", [0x60, 0x01, 0x00, 0x03, 0x40, 0x01, 0x0C, 0x00, 0x03, 0x42, 0x01, 0x01], true),
        ("H.265 single VPS", [0x40, 0x01, 0x0C, 0x01, 0xFF], true),
        ("H.265 single SPS", [0x42, 0x01, 0x01, 0x01, 0x60], true),
        ("H.265 single PPS", [0x44, 0x01, 0xC1, 0x72], true),
        ("H.265 AP with a PPS after a prefix SEI", [0x60, 0x01, 0x00, 0x03, 0x4E, 0x01, 0x05, 0x00, 0x03, 0x44, 0x01, 0xC1], true),
        // No parameter set: an FU (type 49: 0x62 0x01) of an IDR_W_RADL (FU header: S, type 19), an AP of SEI + slice.
        ("H.265 FU of an IDR", [0x62, 0x01, 0x93, 0xAF, 0x01], false),
        ("H.265 AP: SEI, IDR", [0x60, 0x01, 0x00, 0x03, 0x4E, 0x01, 0x05, 0x00, 0x03, 0x26, 0x01, 0xAF], false),
        ("H.265 TRAIL_R", [0x02, 0x01, 0xD0, 0x11], false),
        // H.264 as x264 and our payloader send it.
        ("H.264 SPS", [0x67, 0x42, 0xC0, 0x1E, 0xD9], false),
        ("H.264 STAP-A: SPS, PPS", [0x78, 0x00, 0x04, 0x67, 0x42, 0xC0, 0x1E, 0x00, 0x02, 0x68, 0xCE], false),
        ("H.264 FU-A of an IDR", [0x7C, 0x85, 0x88, 0x84], false),
        ("H.264 IDR", [0x65, 0x88, 0x84, 0x43], false),
        // Not a base-layer H.265 header: nuh_layer_id 1, nuh_temporal_id_plus1 0; too short to be anything.
        ("nuh_layer_id 1", [0x40, 0x09, 0x0C, 0x01], false),
        ("nuh_temporal_id_plus1 0", [0x40, 0x00, 0x0C, 0x01], false),
        ("two bytes", [0x40, 0x01], false),
    ] as [(String, [UInt8], Bool)])
    func recognises(name: String, payload: [UInt8], isHEVC: Bool) {
        #expect(OtherCodecPayload.isHEVCParameterSets(receivedAsH264: payload[...]) == isHEVC, "\(name)")
    }

    /// At an H.264 session: counted, warned about once, and depacketized as configured all the same; an H.265
    /// session counts nothing.
    @Test func sessionCountsAndWarnsOnce() throws {
        let ap: [UInt8] = [0x60, 0x01, 0x00, 0x03, 0x40, 0x01, 0x0C, 0x00, 0x03, 0x42, 0x01, 0x01]
        var session = RTPReceiveSessionTests.session()
        for sequence in UInt16(10)...12 {
            session.handle(rtp: RTPReceiveSessionTests.rtp(sequence, timestamp: UInt32(sequence) * 3000, ap),
                           at: RTPReceiveSessionTests.at(Int(sequence)))
        }
        let output = try RTPReceiveSessionTests.poll(&session, at: RTPReceiveSessionTests.at(20))
        #expect(output.events.filter { $0 == .warning(.otherCodec(.hevc)) }.count == 1)
        #expect(session.statistics.otherCodecPackets == 3 && session.statistics.packetsReceived == 3)

        var hevc = RTPReceiveSessionTests.session { $0.codec = .hevc }
        hevc.handle(rtp: RTPReceiveSessionTests.rtp(10, timestamp: 0, ap), at: RTPReceiveSessionTests.at(0))
        #expect(hevc.statistics.otherCodecPackets == 0)
    }
}
