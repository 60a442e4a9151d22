import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// The WHIP signalling client (RFC 9725 §4.2): POST our SDP offer, take the `201 Created` answer and the session's
/// `Location`, DELETE that resource to stop. On AsyncHTTPClient: redirects, HTTP/1.1 and HTTP/2, and HTTPS through
/// swift-nio-ssl with the system CA store (its default TLS configuration: certificates and host names verified).
///
/// Blocking calls, for a publisher's own thread (`rtenc stream --whip`'s loop); never call them on a NIO event loop.
/// The answer is returned as text: `WebRTCPublisher.connect(answer:)` checks it against the offer (`WHIPAnswer`).
public struct WHIPClient: Sendable {
    /// The WHIP endpoint (http or https).
    public let endpoint: WHIPURL
    /// Sent as `Authorization: Bearer <token>` (RFC 9725 §4.5) on POST and DELETE when set.
    public let bearerToken: String?
    /// How long one request may take, connection included.
    public let timeout: TimeAmount
    private let client: HTTPClient

    /// - Throws: `.badURL` for a URL that is not absolute http(s) with a host, or a token with spaces or control
    ///   characters (it must fit one header line).
    public init(url: String, bearerToken: String? = nil, timeout: TimeAmount = .seconds(10), client: HTTPClient = .shared)
        throws(WHIPClientError)
    {
        endpoint = try WHIPURL(parsing: url)
        if let bearerToken, bearerToken.isEmpty || bearerToken.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw WHIPClientError(code: .badURL, reason: "the bearer token must be non-empty, without spaces or control characters")
        }
        self.bearerToken = bearerToken
        self.timeout = timeout
        self.client = client
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
            return try client.execute(request: request, deadline: .now() + timeout).wait()
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw WHIPClientError(code: .transport, reason: "\(method) \(url.text): no answer within \(timeout.nanoseconds / 1_000_000_000) s")
        } catch {
            throw WHIPClientError(code: .transport, reason: "\(method) \(url.text): \(error)")
        }
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
