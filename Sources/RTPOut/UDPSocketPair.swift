/// The RTP socket and, on the next port, the RTCP socket (RFC 3550 §11: RTCP on the RTP port + 1), or one socket
/// with rtcp-mux (RFC 5761).
///
/// With port 0 the kernel picks the RTP port, and the port after it may already be taken — by any of the other
/// sockets a busy process opens (24 receivers in one test were enough): then another pair is tried, a few times,
/// before giving up. A port given by the caller is tried once.
enum UDPSocketPair {
    static let attempts = 16

    static func open(
        at address: SocketAddress, rtcpMux: Bool, receiveBufferSize: Int32? = 1 << 20
    ) throws(RTPError) -> (rtp: UDPSocket, rtcp: UDPSocket) {
        var lastError: RTPError?
        for _ in 0 ..< attempts {
            let rtp = try UDPSocket(bindTo: address, receiveBufferSize: receiveBufferSize)
            if rtcpMux { return (rtp, rtp) }
            // The last port has no successor (port + 1 would wrap to 0: "any port").
            guard rtp.localAddress.port < UInt16.max else {
                lastError = .make(.invalidValue, "RTP port \(rtp.localAddress.port) leaves no port for RTCP")
                if address.port != 0 { break }
                continue
            }
            do throws(RTPError) {
                let rtcp = try UDPSocket(bindTo: address.withPort(rtp.localAddress.port + 1))
                return (rtp, rtcp)
            } catch {
                lastError = error
                if address.port != 0 { break }
            }
        }
        throw lastError ?? .make(.invalidValue, "no free port pair")
    }
}
