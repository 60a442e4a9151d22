import DTLS
import Foundation
import MediaCore
import RTPOut
import TestSupport
import Testing

/// `openssl s_server -dtls1_2` and `s_client -dtls1_2` (OpenSSL's own tools, a peer independent of CDTLS's BIOs and
/// timer mapping) on 127.0.0.1: the handshake completes over real UDP on the real clock, both sides negotiate
/// SRTP_AES128_CM_SHA1_80, and the keying material the tool prints (`-keymatexport EXTRACTOR-dtls_srtp`) is byte
/// for byte what `DTLSSRTPKeys` holds, in RFC 5764 §4.2's order.
@Suite(.serialized)
struct OpenSSLPeerTests {
    /// A certificate and key for the tool, and the fingerprint its SDP would carry.
    static func peerCertificate(in directory: URL) throws -> DTLSFingerprint {
        let openssl = try Tool.which("openssl")
        _ = try Tool.output(openssl, [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=openssl-peer", "-keyout", directory.appendingPathComponent("key.pem").path,
            "-out", directory.appendingPathComponent("cert.pem").path,
        ], timeout: 20)
        let text = String(decoding: try Tool.output(openssl, [
            "x509", "-noout", "-fingerprint", "-sha256", "-in", directory.appendingPathComponent("cert.pem").path,
        ], timeout: 20), as: UTF8.self)
        // "sha256 Fingerprint=AB:CD:…"
        let hex = try #require(text.split(separator: "=").last).trimmingCharacters(in: .whitespacesAndNewlines)
        return try DTLSFingerprint(sdpValue: "sha-256 " + hex)
    }

    static func toolArguments(_ directory: URL) -> [String] {
        ["-dtls1_2", "-cert", directory.appendingPathComponent("cert.pem").path,
         "-key", directory.appendingPathComponent("key.pem").path, "-use_srtp", "SRTP_AES128_CM_SHA1_80",
         "-keymatexport", "EXTRACTOR-dtls_srtp", "-keymatexportlen", "60"]
    }

    /// The 60 bytes after "Keying material: " in the tool's output.
    static func keyingMaterial(in output: String) throws -> [UInt8] {
        let line = try #require(output.split(separator: "\n").first { $0.contains("Keying material: ") }, "\(output)")
        let hex = Array(try #require(line.split(separator: " ").last).utf8)
        return stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(decoding: hex[$0 ... $0 + 1], as: UTF8.self), radix: 16) }
    }

    /// RFC 5764 §4.2's layout: client key, server key, client salt, server salt.
    static func material(of keys: DTLSSRTPKeys) -> [UInt8] {
        keys.clientMasterKey + keys.serverMasterKey + keys.clientMasterSalt + keys.serverMasterSalt
    }

    /// The edge's loop in miniature, on the real clock: send what the endpoint queued, wait on the socket until a
    /// datagram or the endpoint's timer, hand either over. Ends when `done` says so or after `limit`.
    static func drive(_ endpoint: DTLSEndpoint, _ socket: UDPSocket, peer: inout SocketAddress?, limit: Duration,
                      until done: ([DTLSEvent]) -> Bool) throws -> [DTLSEvent] {
        let clock = MonotonicMediaClock()
        let end = clock.now + limit
        var events: [DTLSEvent] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        endpoint.start(at: clock.now)
        while clock.now < end {
            if let peer {
                while let datagram = endpoint.pollTransmit() {
                    _ = try datagram.withUnsafeBytes { try socket.send($0, to: peer) }
                }
            }
            while let event = endpoint.pollEvent() { events.append(event) }
            if done(events) { return events }
            let wake = min(endpoint.nextTimeout() ?? end, clock.now + .milliseconds(50))
            var descriptor = pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = max(0, Int32((wake - clock.now).nanoseconds / 1_000_000))
            _ = poll(&descriptor, 1, milliseconds)
            while let (count, from) = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) {
                peer = peer ?? from
                guard from == peer, count > 0, endpoint.state != .closed, endpoint.state != .failed else { continue }
                try endpoint.handle(datagram: Array(buffer[0 ..< count]), at: clock.now)
            }
            endpoint.handleTimeout(at: clock.now)
        }
        return events
    }

    static func connection(in events: [DTLSEvent]) -> DTLSConnection? {
        events.lazy.compactMap { if case .connected(let connection) = $0 { connection } else { nil } }.first
    }

    /// rtenc as the DTLS client (`a=setup:active`, what rtenc answers a browser with) against `openssl s_server`.
    @Test func clientAgainstOpenSSLServer() throws {
        let directory = try makeTemporaryDirectory(prefix: "rtenc-dtls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let serverFingerprint = try Self.peerCertificate(in: directory)
        // s_server ends at end of input; a FIFO this test holds open keeps its input open until the test closes it.
        let fifo = directory.appendingPathComponent("stdin").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let keepOpen = open(fifo, O_RDWR | O_CLOEXEC)
        #expect(keepOpen >= 0)
        defer { close(keepOpen) }
        let port = TestPorts.next()
        let command = (["exec", try Tool.which("openssl"), "s_server", "-accept", "127.0.0.1:\(port)", "-naccept", "1", "-verify", "1"]
            + Self.toolArguments(directory)).joined(separator: " ") + " < \(fifo)"
        let server = try BackgroundProcess("/bin/sh", ["-c", command], deadline: 30)
        #expect(waitUntilBound(udpPort: port, timeout: 10))

        let certificate = try DTLSCertificate()
        let client = try DTLSEndpoint(role: .client, certificate: certificate, remoteFingerprint: serverFingerprint)
        let socket = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        var peer: SocketAddress? = try SocketAddress(host: "127.0.0.1", port: port)
        let events = try Self.drive(client, socket, peer: &peer, limit: .seconds(10)) { Self.connection(in: $0) != nil || $0.contains { if case .failed = $0 { true } else { false } } }
        let connection = try #require(Self.connection(in: events), "\(events)")
        #expect(connection.peerFingerprint == serverFingerprint)
        #expect(connection.protocolVersion == 0xFEFD)

        client.close(at: MonotonicMediaClock().now)
        while let datagram = client.pollTransmit() { _ = try datagram.withUnsafeBytes { try socket.send($0, to: peer!) } }
        let result = server.finish(within: 5)
        let output = result.stdoutText
        #expect(output.contains("SRTP Extension negotiated, profile=SRTP_AES128_CM_SHA1_80"), "\(output)")
        #expect(try Self.keyingMaterial(in: output) == Self.material(of: connection.keys))
    }

    /// rtenc as the DTLS server (`a=setup:passive`, what a WHIP server may ask of rtenc) against `openssl s_client`.
    @Test func serverAgainstOpenSSLClient() throws {
        let directory = try makeTemporaryDirectory(prefix: "rtenc-dtls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clientFingerprint = try Self.peerCertificate(in: directory)
        let port = TestPorts.next()
        let socket = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: port))
        let server = try DTLSEndpoint(role: .server, certificate: DTLSCertificate(), remoteFingerprint: clientFingerprint)
        // s_client reads its input (here: at its end at once) only after the handshake, then sends close_notify.
        let client = try BackgroundProcess(
            try Tool.which("openssl"), ["s_client", "-connect", "127.0.0.1:\(port)"] + Self.toolArguments(directory),
            deadline: 30)
        var peer: SocketAddress?
        let events = try Self.drive(server, socket, peer: &peer, limit: .seconds(10)) { events in
            events.contains { if case .closed = $0 { true } else if case .failed = $0 { true } else { false } }
        }
        let connection = try #require(Self.connection(in: events), "\(events)")
        #expect(connection.peerFingerprint == clientFingerprint)
        #expect(events.last.map { if case .closed = $0 { true } else { false } } == true, "s_client's close_notify: \(events)")
        let output = client.finish(within: 5).stdoutText
        #expect(output.contains("SRTP Extension negotiated, profile=SRTP_AES128_CM_SHA1_80"), "\(output)")
        #expect(try Self.keyingMaterial(in: output) == Self.material(of: connection.keys))
    }
}
