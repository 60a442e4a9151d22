import Testing
import WebRTC

@Suite struct PacketClassTests {
    static let cases: [(bytes: [UInt8], expected: PacketClass, why: String)] = [
        ([], .unknown, "empty datagram"),
        ([0x00, 0x01, 0x00, 0x00], .stun, "Binding request (RFC 5389 message type 0x0001)"),
        ([0x01, 0x01, 0x00, 0x2c], .stun, "Binding success response"),
        ([0x03], .stun, "top of the STUN range"),
        ([0x04], .unknown, "between STUN and ZRTP"),
        ([0x10], .zrtp, "ZRTP"),
        ([0x16, 0xfe, 0xfd], .dtls, "DTLS 1.2 handshake record"),
        ([0x14, 0xfe, 0xfd], .dtls, "DTLS change_cipher_spec (bottom of the range)"),
        ([0x17, 0xfe, 0xfd], .dtls, "DTLS application data"),
        ([0x3f], .dtls, "top of the DTLS range"),
        ([0x40, 0x00], .turnChannel, "TURN ChannelData"),
        ([0x80, 0x60, 0x00, 0x01], .rtp, "RTP, PT 96, no marker"),
        ([0x80, 0xe0, 0x00, 0x01], .rtp, "RTP, PT 96 with the marker bit"),
        ([0x80, 0xc8, 0x00, 0x06], .rtcp, "SR (200)"),
        ([0x81, 0xcd, 0x00, 0x03], .rtcp, "RTPFB (205): NACK"),
        ([0x81, 0xce, 0x00, 0x02], .rtcp, "PSFB (206): PLI"),
        ([0x8f, 0xcd, 0x00, 0x05], .rtcp, "RTPFB FMT 15: transport-cc"),
        ([0x80, 0xbf], .rtp, "PT 63 with the marker bit (191): RTP"),
        ([0x80, 0xc0], .rtcp, "192: first RTCP type"),
        ([0x80, 0xdf], .rtcp, "223: last RTCP type"),
        ([0x80], .unknown, "a lone RTP/RTCP first byte"),
        ([0xbf, 0x60], .rtp, "191: top of the RTP/RTCP range"),
        ([0xc0, 0x60], .unknown, "192: above the RTP/RTCP range"),
        ([0xbf], .unknown, "a lone byte at the top of the RTP/RTCP range"),
        ([0xff, 0x00], .unknown, "above every range"),
        ([0x50], .unknown, "80: between TURN and RTP"),
    ]

    @Test(arguments: cases)
    func classifies(_ c: (bytes: [UInt8], expected: PacketClass, why: String)) {
        #expect(PacketClass(classifying: c.bytes) == c.expected, "\(c.why)")
        #expect(PacketClass(classifying: c.bytes[...]) == c.expected, "\(c.why), as a slice")
    }
}
