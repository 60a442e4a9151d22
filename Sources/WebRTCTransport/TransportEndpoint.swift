import DTLS
import RTPOut
import WebRTC

/// What every WebRTC transport starts with — the UDP socket, the I/O thread's wake-up, the DTLS certificate, the host
/// candidates — and the random local values of each peer's SDP (`WebRTCServer` for each viewer, `WebRTCPublisher`
/// once).
struct TransportEndpoint {
    let socket: UDPSocket
    let wake: WakeSignal
    let certificate: DTLSCertificate
    /// The host candidates to announce: those given (port 0: the socket's), or the bound address when none are.
    let candidates: [SocketAddress]

    /// - Throws: `.transport` when the socket or the certificate cannot be made, or when the socket is bound to a
    ///   wildcard address and no candidates are given (a wildcard names no address a peer could reach).
    init(bind: SocketAddress, candidates: [SocketAddress]) throws(WebRTCTransportError) {
        do {
            socket = try UDPSocket(bindTo: bind)
            wake = try WakeSignal()
        } catch {
            throw WebRTCTransportError(code: .transport, reason: "UDP socket on \(bind): \(error)")
        }
        do {
            certificate = try DTLSCertificate()
        } catch {
            throw WebRTCTransportError(code: .transport, reason: "DTLS certificate: \(error)")
        }
        var candidates = candidates
        if candidates.isEmpty {
            guard bind.addressBytes.contains(where: { $0 != 0 }) else {
                throw WebRTCTransportError(
                    code: .transport, reason: "the UDP socket is bound to the wildcard \(bind.host): name the addresses peers reach it on as candidates (rtenc serve: --webrtc-candidate IP)")
            }
            candidates = [socket.localAddress]
        }
        let port = socket.localAddress.port
        self.candidates = candidates.map { $0.port == 0 ? $0.withPort(port) : $0 }
    }

    /// Our side of one peer's SDP: fresh ICE credentials, SSRC (and another for RTX, which the SDP takes only when the
    /// peer wants RTX), CNAME and session id (getrandom(2)), the certificate's SHA-256 fingerprint, the host candidates.
    func localParameters(using random: inout some RandomNumberGenerator) -> (WebRTCSDP.LocalParameters, ICECredentials) {
        let credentials = ICECredentials.random(using: &random)
        var local = WebRTCSDP.LocalParameters(
            iceUfrag: credentials.ufrag, icePwd: credentials.pwd,
            fingerprint: .init(hashFunction: DTLSFingerprint.sha256Name, bytes: certificate.fingerprint.digest),
            candidates: candidates.map { .init(address: $0.host, port: $0.port) }, ssrc: UInt32.random(in: 1 ... .max, using: &random),
            cname: Self.randomToken(length: 16, using: &random), sessionID: UInt64.random(in: 1 ... UInt64(Int64.max), using: &random))
        // RFC 4588 §4: the retransmission stream has an SSRC of its own (random too, RFC 3550 §8.1).
        let rtx = UInt32.random(in: 1 ... .max, using: &random)
        local.rtxSSRC = rtx != local.ssrc ? rtx : rtx % UInt32.max + 1
        return (local, credentials)
    }

    /// `length` characters of [A-Za-z0-9_-] (6 bits each: 64 divides 2^64, so no bias).
    static func randomToken(length: Int, using random: inout some RandomNumberGenerator) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return String((0 ..< length).map { _ in alphabet[Int.random(in: 0 ..< alphabet.count, using: &random)] })
    }

    /// The remote SDP's `a=fingerprint:sha-256`, the one rtenc checks the peer's DTLS certificate against.
    static func sha256Fingerprint(_ fingerprints: [WebRTCSDP.Fingerprint]) -> DTLSFingerprint? {
        fingerprints.first { $0.hashFunction == DTLSFingerprint.sha256Name }.flatMap { try? DTLSFingerprint(sha256: $0.bytes) }
    }
}
