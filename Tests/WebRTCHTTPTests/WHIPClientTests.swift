import Glibc
import Synchronization
import Testing
@testable import WebRTCHTTP
@testable import WHIPClient

/// `WHIPURL`: what a WHIP endpoint may be, and RFC 3986 §5.2 resolution of the Location a server answers.
struct WHIPURLTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/whip", "http", "127.0.0.1:8080", "127.0.0.1", "/whip"),
        ("HTTPS://example.com/rtc/whip?room=1#x", "https", "example.com", "example.com", "/rtc/whip?room=1"),
        ("http://[::1]:8080/whip", "http", "[::1]:8080", "::1", "/whip"),
        ("http://host", "http", "host", "host", "/"),
        ("http://host?q", "http", "host", "host", "/?q"),
    ])
    func parses(text: String, scheme: String, authority: String, host: String, path: String) throws {
        let url = try WHIPURL(parsing: text)
        #expect(url.scheme == scheme)
        #expect(url.authority == authority)
        #expect(url.host == host)
        #expect(url.pathAndQuery == path)
    }

    @Test(arguments: [
        "127.0.0.1:8080/whip", "ftp://host/whip", "http:///whip", "http://user@host/whip", "http://host:0/whip",
        "http://host:99999/", "http://ho st/whip", "whip", "",
    ])
    func refuses(text: String) {
        #expect(throws: WHIPClientError.self) { try WHIPURL(parsing: text) }
        #expect((try? WHIPURL(parsing: text)) == nil)
    }

    @Test(arguments: [
        ("/whip/session/1", "http://h:1/whip/session/1"),
        ("session/1", "http://h:1/rtc/session/1"),
        ("whip/session/7", "http://h:1/rtc/whip/session/7"),
        ("../x", "http://h:1/x"),
        ("./a/./b/../c", "http://h:1/rtc/a/c"),
        ("?id=3", "http://h:1/rtc/whip?id=3"),
        ("//other:2/r/1", "http://other:2/r/1"),
        ("https://elsewhere/r/1", "https://elsewhere/r/1"),
    ])
    func resolvesLocation(reference: String, expected: String) throws {
        let base = try WHIPURL(parsing: "http://h:1/rtc/whip")
        #expect(base.resolving(reference)?.text == expected)
    }

    @Test func refusesOtherSchemesInLocation() throws {
        let base = try WHIPURL(parsing: "http://h:1/whip")
        #expect(base.resolving("mailto:x@y") == nil)
        #expect(base.resolving("rtsp://h/x") == nil)
    }

    @Test func firstLineOfAReason() {
        #expect(WHIPClient.firstLine(of: "\n  no H.264 here\nmore\n") == "no H.264 here")
        #expect(WHIPClient.firstLine(of: "") == "")
        #expect(WHIPClient.firstLine(of: String(repeating: "x", count: 300)).count == 201)
    }
}

/// `WHIPClient` against a real HTTP server on 127.0.0.1: the WHEP server's handler with the `RecordingEndpoint` of
/// WHEPRequestHandlerTests, which speak the same protocol (201 + answer + a relative Location, 401 without the token,
/// the endpoint's refusals with their reason, DELETE).
@Suite(.serialized) struct WHIPClientTests {
    static func server(token: String? = nil, refusal: WHEPRequestError? = nil) throws -> (WHEPHTTPServer, RecordingEndpoint, Int) {
        let endpoint = RecordingEndpoint(refusal: refusal)
        let server = WHEPHTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, path: "/whip", bearerToken: token, playerPage: nil), endpoint: endpoint)
        let port = try server.start()
        return (server, endpoint, port)
    }

    @Test func publishesAndDeletes() throws {
        let (server, endpoint, port) = try Self.server()
        defer { server.stop() }
        let client = try WHIPClient(url: "http://127.0.0.1:\(port)/whip")
        let session = try client.publish(offer: "v=0\r\noffer\r\n")
        #expect(session.answer == "v=0\r\nanswer\r\n")
        #expect(session.resource.text == "http://127.0.0.1:\(port)/whip/s3ss10n-ID_1", "Location resolved against the URL")
        #expect(endpoint.offers.withLock { $0 } == ["v=0\r\noffer\r\n"])
        #expect(try client.delete(session) == 200)
        #expect(endpoint.ended.withLock { $0 } == ["s3ss10n-ID_1"])
    }

    @Test func sendsTheBearerToken() throws {
        let (server, _, port) = try Self.server(token: "s3cret")
        defer { server.stop() }
        let without = try WHIPClient(url: "http://127.0.0.1:\(port)/whip")
        let error = try #require(throws: WHIPClientError.self) { try without.publish(offer: "v=0\r\n") }
        #expect(error.code == .refused)
        #expect(error.status == 401)
        #expect(error.reason.hasPrefix("401 Unauthorized: a bearer token is required"))
        let with = try WHIPClient(url: "http://127.0.0.1:\(port)/whip", bearerToken: "s3cret")
        let session = try with.publish(offer: "v=0\r\n")
        #expect(try with.delete(session) == 200)
        #expect(throws: WHIPClientError.self) { try without.delete(session) }
    }

    @Test func refusalCarriesStatusAndReason() throws {
        let (server, _, port) = try Self.server(refusal: .notAcceptable("no H.264 with packetization-mode=1\nsecond line"))
        defer { server.stop() }
        let client = try WHIPClient(url: "http://127.0.0.1:\(port)/whip")
        let error = try #require(throws: WHIPClientError.self) { try client.publish(offer: "v=0\r\n") }
        #expect(error.code == .refused)
        #expect(error.status == 406)
        #expect(error.reason == "406 Not Acceptable: no H.264 with packetization-mode=1")
    }

    @Test func wrongPathIs404() throws {
        let (server, _, port) = try Self.server()
        defer { server.stop() }
        let client = try WHIPClient(url: "http://127.0.0.1:\(port)/elsewhere")
        let error = try #require(throws: WHIPClientError.self) { try client.publish(offer: "v=0\r\n") }
        #expect(error.status == 404)
    }

    /// Nothing listens: the connection is refused, and the client says so at once (one try, no back-off until the
    /// deadline: AsyncHTTPClient's default retried for the whole 10 s).
    @Test func refusedConnectionFailsAtOnce() throws {
        // Bind a port, then free it: nothing listens there.
        let (server, _, port) = try Self.server()
        server.stop()
        let client = try WHIPClient(url: "http://127.0.0.1:\(port)/whip")
        let started = ContinuousClock.now
        let error = try #require(throws: WHIPClientError.self) { try client.publish(offer: "v=0\r\n") }
        let elapsed = ContinuousClock.now - started
        #expect(error.code == .transport)
        #expect(error.status == nil)
        #expect(error.reason.hasPrefix("POST http://127.0.0.1:\(port)/whip: cannot connect to 127.0.0.1:\(port): "), "\(error.reason)")
        #expect(error.reason.contains("Connection refused"), "\(error.reason)")
        #expect(elapsed < .milliseconds(500), "\(elapsed)")
    }

    /// A server that never answers the SYN (here: a listener on 127.0.0.1 whose accept queue is full, so the kernel
    /// drops further SYNs, as a blackholed route or a firewall would): the request fails when the connect timeout
    /// ends, not at the 10 s deadline.
    @Test func unansweredConnectionFailsAtTheConnectTimeout() throws {
        let listener = try FullListener()
        defer { listener.close() }
        let client = try WHIPClient(url: "http://127.0.0.1:\(listener.port)/whip", configuration: .init(connectTimeout: .milliseconds(700)))
        let started = ContinuousClock.now
        let error = try #require(throws: WHIPClientError.self) { try client.publish(offer: "v=0\r\n") }
        let elapsed = ContinuousClock.now - started
        #expect(error.code == .transport)
        #expect(error.reason == "POST http://127.0.0.1:\(listener.port)/whip: no connection within 0.7 s (connect timeout)")
        #expect(elapsed >= .milliseconds(650) && elapsed < .seconds(3), "\(elapsed)")
    }

    /// A CA file is read up front: a missing file and one without a certificate are `.badCAFile`, before any request.
    @Test func refusesUnusableCAFiles() throws {
        let missing = try #require(throws: WHIPClientError.self) {
            try WHIPClient(url: "https://h/whip", configuration: .init(caFile: "/nonexistent/ca.pem"))
        }
        #expect(missing.code == .badCAFile)
        #expect(missing.reason.hasPrefix("/nonexistent/ca.pem: not a readable PEM file of certificates"), "\(missing.reason)")
        let notPEM = try #require(throws: WHIPClientError.self) {
            try WHIPClient(url: "https://h/whip", configuration: .init(caFile: "/etc/passwd"))
        }
        #expect(notPEM.code == .badCAFile, "\(notPEM.reason)")
    }

    @Test func refusesBadTokens() {
        #expect(throws: WHIPClientError.self) { try WHIPClient(url: "http://h/whip", bearerToken: "two words") }
        #expect(throws: WHIPClientError.self) { try WHIPClient(url: "http://h/whip", bearerToken: "") }
    }
}

/// A TCP listener on 127.0.0.1 with a backlog of 0 and one connection queued that is never accepted: the kernel drops
/// every further SYN, so a client's connect gets no answer at all (what a blackholed address looks like), on loopback.
struct FullListener {
    let port: Int
    private let sockets: (listener: Int32, filler: Int32)

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = bound && withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) == 0 }
        }
        guard listener >= 0, filler >= 0, connected else {
            Glibc.close(listener)
            Glibc.close(filler)
            throw WHIPClientError(code: .transport, reason: "cannot set up the full listener: errno \(errno)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        sockets = (listener, filler)
    }

    func close() {
        Glibc.close(sockets.filler)
        Glibc.close(sockets.listener)
    }
}
