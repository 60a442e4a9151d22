import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOSSL

/// The WHIP signalling client (RFC 9725 §4.2): POST our SDP offer, take the `201 Created` answer and the session's
/// `Location`, DELETE that resource to stop. On AsyncHTTPClient: redirects, HTTP/1.1 and HTTP/2, and HTTPS through
/// swift-nio-ssl with the system CA store (certificates and host names verified), plus the CAs of
/// `Configuration.caFile` when given.
///
/// It fails fast: a connection is tried once (AsyncHTTPClient would retry a refused connection with back-off until
/// the deadline, 10 s of silence for a server that is not running), within `Configuration.connectTimeout`.
///
/// Blocking calls, for a publisher's own thread (`rtenc stream --whip`'s loop); never call them on a NIO event loop.
/// The answer is returned as text: `WebRTCPublisher.connect(answer:)` checks it against the offer (`WHIPAnswer`).
/// The client owns its HTTP client (its own TLS configuration) and shuts it down when released.
public final class WHIPClient: Sendable {
    /// How a `WHIPClient` reaches its server.
    public struct Configuration: Sendable, Hashable {
        /// How long one request may take, connection included.
        public var timeout: TimeAmount
        /// How long opening the connection (TCP, and TLS for https) may take: what a server that never answers
        /// (a dropped SYN, a blackholed route) costs. One try: a refused connection fails at once.
        public var connectTimeout: TimeAmount
        /// A PEM file of CA certificates trusted **in addition to** the system store (a private CA, a test CA): like
        /// curl's `--cacert` but without giving up the system's CAs (as `NODE_EXTRA_CA_CERTS`). Nil: the system store.
        public var caFile: String?

        public init(timeout: TimeAmount = .seconds(10), connectTimeout: TimeAmount = .seconds(3), caFile: String? = nil) {
            self.timeout = timeout
            self.connectTimeout = connectTimeout
            self.caFile = caFile
        }
    }

    /// The WHIP endpoint (http or https).
    public let endpoint: WHIPURL
    /// Sent as `Authorization: Bearer <token>` (RFC 9725 §4.5) on POST and DELETE when set.
    public let bearerToken: String?
    public let configuration: Configuration
    private let client: HTTPClient

    /// - Throws: `.badURL` for a URL that is not absolute http(s) with a host, or a token with spaces or control
    ///   characters (it must fit one header line); `.badCAFile` for a `caFile` that cannot be read or holds no PEM
    ///   certificate.
    public init(url: String, bearerToken: String? = nil, configuration: Configuration = Configuration()) throws(WHIPClientError) {
        endpoint = try WHIPURL(parsing: url)
        if let bearerToken, bearerToken.isEmpty || bearerToken.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw WHIPClientError(code: .badURL, reason: "the bearer token must be non-empty, without spaces or control characters")
        }
        self.bearerToken = bearerToken
        self.configuration = configuration
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = configuration.caFile { tls.additionalTrustRoots = [.certificates(try Self.certificates(in: caFile))] }
        var http = HTTPClient.Configuration(tlsConfiguration: tls, timeout: .init(connect: configuration.connectTimeout))
        http.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
    }

    deinit {
        // Not on an event loop (the calls block, so the owner's thread is not one): a synchronous shutdown is safe.
        try? client.syncShutdown()
    }

    /// The certificates of a PEM file, read up front so that a wrong path is one clear error before anything starts.
    static func certificates(in path: String) throws(WHIPClientError) -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw WHIPClientError(code: .badCAFile, reason: "\(path): not a readable PEM file of certificates (\(error))")
        }
        guard !certificates.isEmpty else {
            throw WHIPClientError(code: .badCAFile, reason: "\(path): no PEM certificate in it (-----BEGIN CERTIFICATE-----)")
        }
        return certificates
    }

    /// A published session: the server's answer and the resource to DELETE.
    public struct Session: Sendable, Hashable {
        public var answer: String
        /// The `Location`, resolved against the endpoint's URL (RFC 3986 §5.2: relative ones are allowed).
        public var resource: WHIPURL
    }

    /// POSTs the offer (`Content-Type: application/sdp`).
    /// - Throws: `.refused` for any status but 201 (the status and the first line of the body, which servers use for
    ///   the reason), `.protocolViolation` for a 201 without `Location` or without an SDP body, `.transport` when the
    ///   server cannot be reached or does not answer within `timeout` (the cause, TLS verification failures included).
    public func publish(offer: String) throws(WHIPClientError) -> Session {
        var headers = HTTPHeaders([("Content-Type", "application/sdp"), ("Accept", "application/sdp")])
        if let bearerToken { headers.add(name: "Authorization", value: "Bearer \(bearerToken)") }
        let response = try execute(.POST, endpoint, headers: headers, body: offer)
        let body = response.body.map { String(buffer: $0) } ?? ""
        guard response.status == .created else {
            throw WHIPClientError(code: .refused, reason: Self.refusal(status: response.status, body: body), status: Int(response.status.code))
        }
        guard let location = response.headers.first(name: "Location"), !location.isEmpty else {
            throw WHIPClientError(code: .protocolViolation, reason: "the server answered 201 without a Location header (RFC 9725 §4.2)", status: 201)
        }
        guard let resource = endpoint.resolving(location) else {
            throw WHIPClientError(code: .protocolViolation, reason: "the Location \"\(location)\" is not a URL reference rtenc can follow", status: 201)
        }
        guard body.hasPrefix("v=0") else {
            throw WHIPClientError(code: .protocolViolation, reason: "the 201's body is not an SDP answer (it starts \"\(Self.firstLine(of: body))\")", status: 201)
        }
        return Session(answer: body, resource: resource)
    }

    /// DELETEs the session's resource (RFC 9725 §4.2: how the client ends it). Returns the status (2xx).
    /// - Throws: `.refused` for a status outside 2xx, `.transport` when the server does not answer within `timeout`.
    @discardableResult
    public func delete(_ session: Session) throws(WHIPClientError) -> Int {
        var headers = HTTPHeaders()
        if let bearerToken { headers.add(name: "Authorization", value: "Bearer \(bearerToken)") }
        let response = try execute(.DELETE, session.resource, headers: headers, body: nil)
        guard (200 ..< 300).contains(response.status.code) else {
            let body = response.body.map { String(buffer: $0) } ?? ""
            throw WHIPClientError(code: .refused, reason: Self.refusal(status: response.status, body: body), status: Int(response.status.code))
        }
        return Int(response.status.code)
    }

    private func execute(_ method: HTTPMethod, _ url: WHIPURL, headers: HTTPHeaders, body: String?) throws(WHIPClientError) -> HTTPClient.Response {
        do {
            let request = try HTTPClient.Request(url: url.text, method: method, headers: headers, body: body.map { .string($0) })
            return try client.execute(request: request, deadline: .now() + configuration.timeout).wait()
        } catch {
            throw WHIPClientError(code: .transport, reason: "\(method) \(url.text): \(explain(error, url: url))")
        }
    }

    /// One line for why a request got no answer: the connection refused or timed out, or TLS (an untrusted
    /// certificate, one for another host), with a hint at the fix; anything else as the error says it.
    func explain(_ error: any Error, url: WHIPURL) -> String {
        let seconds = { (amount: TimeAmount) -> String in
            let milliseconds = amount.nanoseconds / 1_000_000
            return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
        }
        if let error = error as? HTTPClientError {
            if error == .connectTimeout { return "no connection within \(seconds(configuration.connectTimeout)) s (connect timeout)" }
            if error == .deadlineExceeded || error == .readTimeout { return "no answer within \(seconds(configuration.timeout)) s" }
        }
        if let error = error as? NIOSSLError, case .handshakeFailed(let cause) = error {
            let text = "\(cause)"
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                let trusted = configuration.caFile.map { "the system store or \($0)" } ?? "the system store"
                return "TLS: the server's certificate is not trusted (CERTIFICATE_VERIFY_FAILED: no CA in \(trusted) signed it)"
                    + (configuration.caFile == nil ? "; --whip-ca-file adds a CA" : "")
            }
            return "TLS handshake failed: \(text)"
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return "TLS: the server's certificate is not for \(url.host) (\(error))"
        }
        if let error = error as? IOError { return "cannot connect to \(url.authority): \(error.description)" }
        return "\(error)"
    }

    /// "406 Not Acceptable: <the body's first line>".
    static func refusal(status: HTTPResponseStatus, body: String) -> String {
        let line = firstLine(of: body)
        return "\(status.code) \(status.reasonPhrase)" + (line.isEmpty ? "" : ": \(line)")
    }

    /// The first non-empty line, at most 200 characters (a server's HTML error page stays one readable line).
    static func firstLine(of body: String) -> String {
        let line = body.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) } ?? ""
        let trimmed = line.trimmingPrefix(while: \.isWhitespace)
        return trimmed.count > 200 ? String(trimmed.prefix(200)) + "…" : String(trimmed)
    }
}

/// What went wrong publishing over WHIP: a URL rtenc cannot use, a server that refused (with its status and reason),
/// one that broke the protocol, or one that could not be reached.
public struct WHIPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The URL or the token cannot be used.
        public static let badURL = Code(rawValue: "badURL")
        /// The server answered with a status other than 201 (POST) or 2xx (DELETE).
        public static let refused = Code(rawValue: "refused")
        /// A 201 without Location or without an SDP answer.
        public static let protocolViolation = Code(rawValue: "protocolViolation")
        /// No connection, TLS failure, or no answer in time.
        public static let transport = Code(rawValue: "transport")
        /// The CA file cannot be read or holds no certificate.
        public static let badCAFile = Code(rawValue: "badCAFile")
    }

    public var code: Code
    public var reason: String
    /// The HTTP status, when the server answered.
    public var status: Int?

    public init(code: Code, reason: String, status: Int? = nil) {
        self.code = code
        self.reason = reason
        self.status = status
    }

    public var description: String { reason }
}
