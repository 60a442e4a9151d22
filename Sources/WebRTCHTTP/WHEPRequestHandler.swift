import NIOCore
import NIOHTTP1

/// One HTTP/1.1 connection's WHEP requests, behind NIO's server pipeline (which parses the requests):
///
///     OPTIONS *, /whep, /whep/<id>   204, CORS preflight (Accept-Post: application/sdp on /whep)
///     POST /whep                     201 + answer + Location: /whep/<id>   (application/sdp offers only: 415;
///                                    over the body cap: 413; the endpoint's refusals: 400/406/503 with a reason,
///                                    and Retry-After when the endpoint gives one)
///     DELETE /whep/<id>              200, or 404 for no such session
///     PATCH /whep/<id>               405: no trickle ICE (the answer carries every candidate)
///     GET /                          the player page (when the server has one)
///
/// With a bearer token configured, POST, PATCH and DELETE need `Authorization: Bearer <token>` (401 otherwise);
/// the page and preflights do not. Every response closes the connection (signalling is a few requests per viewer).
final class WHEPRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    struct Configuration: Sendable {
        var endpoint: any WHEPEndpoint
        /// The resource path (`/whep`).
        var path: String
        var maxBodyBytes: Int
        var bearerToken: String?
        var playerPage: String?
    }

    private let configuration: Configuration
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    /// Set when a response went out before the request's end (413): the rest of the request is ignored.
    private var answered = false

    init(configuration: Configuration) {
        self.configuration = configuration
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = nil
            answered = false
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > configuration.maxBodyBytes {
                respond(context, status: .payloadTooLarge, text: "request body of \(length) bytes is over the \(configuration.maxBodyBytes)-byte limit")
            }
        case .body(var chunk):
            guard !answered else { return }
            if (body?.readableBytes ?? 0) + chunk.readableBytes > configuration.maxBodyBytes {
                respond(context, status: .payloadTooLarge, text: "request body is over the \(configuration.maxBodyBytes)-byte limit")
                return
            }
            if body == nil { body = chunk } else { body!.writeBuffer(&chunk) }
        case .end:
            guard !answered, let head else { return }
            route(context, head)
        }
    }

    /// `IdleStateHandler`'s read timeout: a client that sent nothing (or stopped mid-request) for 10 s is closed.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func route(_ context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let resourcePrefix = configuration.path + "/"
        let isCollection = path == configuration.path
        let sessionID = path.hasPrefix(resourcePrefix) ? String(path.dropFirst(resourcePrefix.count)) : nil
        switch head.method {
        case .OPTIONS:
            var headers = HTTPHeaders()
            if isCollection { headers.add(name: "Accept-Post", value: "application/sdp") }
            respond(context, status: .noContent, headers: headers)
        case .GET where path == "/" || path == "/index.html":
            guard let page = configuration.playerPage else { return respond(context, status: .notFound, text: "no page here") }
            respond(context, status: .ok, contentType: "text/html; charset=utf-8", body: page)
        case .POST where isCollection:
            guard authorized(head) else { return unauthorized(context) }
            let contentType = head.headers.first(name: "content-type")?.split(separator: ";").first?
                .trimmingSpaces.lowercased()
            guard contentType == "application/sdp" else {
                return respond(context, status: .unsupportedMediaType,
                               text: "the offer must be sent as Content-Type: application/sdp (got \(contentType ?? "none"))")
            }
            let offer = body.map { String(buffer: $0) } ?? ""
            guard !offer.isEmpty else { return respond(context, status: .badRequest, text: "the request has no SDP offer") }
            do {
                let session = try configuration.endpoint.createSession(offer: offer)
                var headers = HTTPHeaders()
                headers.add(name: "Location", value: resourcePrefix + session.id)
                respond(context, status: .created, headers: headers, contentType: "application/sdp", body: session.answer)
            } catch {
                var headers = HTTPHeaders()
                if let seconds = error.retryAfter { headers.add(name: "Retry-After", value: "\(max(0, seconds))") }
                respond(context, status: HTTPResponseStatus(statusCode: error.status), headers: headers, text: error.reason)
            }
        case .DELETE where sessionID.map(Self.isResourceID) == true:
            guard authorized(head) else { return unauthorized(context) }
            if configuration.endpoint.endSession(id: sessionID!) {
                respond(context, status: .ok)
            } else {
                respond(context, status: .notFound, text: "no session \(sessionID!)")
            }
        case .PATCH where sessionID.map(Self.isResourceID) == true:
            guard authorized(head) else { return unauthorized(context) }
            var headers = HTTPHeaders()
            headers.add(name: "Allow", value: "DELETE, OPTIONS")
            respond(context, status: .methodNotAllowed, headers: headers,
                    text: "trickle ICE is not supported: the answer carries every candidate")
        default:
            let known = isCollection || sessionID.map(Self.isResourceID) == true || path == "/"
            if known {
                var headers = HTTPHeaders()
                headers.add(name: "Allow", value: isCollection ? "POST, OPTIONS" : path == "/" ? "GET" : "DELETE, PATCH, OPTIONS")
                respond(context, status: .methodNotAllowed, headers: headers, text: "\(head.method) is not allowed on \(path)")
            } else {
                respond(context, status: .notFound, text: "nothing at \(path); the WHEP endpoint is \(configuration.path)")
            }
        }
    }

    /// `[A-Za-z0-9_-]+`, at most 128 characters.
    static func isResourceID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F
        }
    }

    private func authorized(_ head: HTTPRequestHead) -> Bool {
        guard let token = configuration.bearerToken else { return true }
        guard let value = head.headers.first(name: "authorization") else { return false }
        let parts = value.split(separator: " ", maxSplits: 1)
        return parts.count == 2 && parts[0].lowercased() == "bearer" && constantTimeEqual(Array(parts[1].utf8), Array(token.utf8))
    }

    private func unauthorized(_ context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "WWW-Authenticate", value: "Bearer")
        respond(context, status: .unauthorized, headers: headers, text: "a bearer token is required (Authorization: Bearer …)")
    }

    private func respond(_ context: ChannelHandlerContext, status: HTTPResponseStatus, headers: HTTPHeaders = [:], text: String) {
        respond(context, status: status, headers: headers, contentType: "text/plain; charset=utf-8", body: text + "\n")
    }

    /// Writes the whole response (CORS headers on every one) and closes the connection.
    private func respond(
        _ context: ChannelHandlerContext, status: HTTPResponseStatus, headers extra: HTTPHeaders = [:],
        contentType: String? = nil, body: String? = nil
    ) {
        answered = true
        var headers = extra
        headers.add(name: "Access-Control-Allow-Origin", value: "*")
        headers.add(name: "Access-Control-Allow-Methods", value: "GET, POST, DELETE, PATCH, OPTIONS")
        headers.add(name: "Access-Control-Allow-Headers", value: "Content-Type, Authorization")
        headers.add(name: "Access-Control-Expose-Headers", value: "Location")
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Cache-Control", value: "no-store")
        var buffer = context.channel.allocator.buffer(capacity: body?.utf8.count ?? 0)
        if let body { buffer.writeString(body) }
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        headers.add(name: "Content-Length", value: "\(buffer.readableBytes)")
        let responseHead = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        if buffer.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Compares without an early exit, so the time taken does not tell how much of a guessed token was right.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
