import RTPOut
import WebRTC

/// The RTCP packet types (RFC 3550 §12.1: 200 SR … 203 BYE, 205/206 feedback) in the SRTCP datagrams among
/// `datagrams` (RFC 7983 demultiplexing skips the rest), each unprotected with `srtp` and walked packet by packet through
/// its compound: what the loopback tests check for a BYE.
func rtcpTypes(_ datagrams: [[UInt8]], srtp: SRTPSession) throws -> [UInt8] {
    var types: [UInt8] = []
    for var packet in datagrams where PacketClass(classifying: packet) == .rtcp {
        let length = try packet.withUnsafeMutableBytes { try srtp.unprotectRTCP($0, length: $0.count) }
        var offset = 0
        while offset + 4 <= length {
            types.append(packet[offset + 1])
            offset += (Int(packet[offset + 2]) << 8 | Int(packet[offset + 3])) * 4 + 4
        }
    }
    return types
}
