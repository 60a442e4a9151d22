import NIOCore
import NIOEmbedded
import NIOHTTP1
import Synchronization
import Testing
@testable import WebRTCHTTP

/// An endpoint that answers every offer with a fixed answer (or the refusal it is told), and records what it got.
final class RecordingEndpoint: WHEPEndpoint {
    let offers = Mutex<[String]>([])
    let ended = Mutex<[String]>([])
    let refusal: WHEPRequestError?

    init(refusal: WHEPRequestError? = nil) { self.refusal = refusal }

    func createSession(offer: String) throws(WHEPRequestError) -> WHEPSession {
        offers.withLock { $0.append(offer) }
        if let refusal { throw refusal }
        return WHEPSession(answer: "v=0\r\nanswer\r\n", id: "s3ss10n-ID_1")
    }

    func endSession(id: String) -> Bool {
        ended.withLock { $0.append(id) }
        return id == "s3ss10n-ID_1"
    }
}

struct Response {
    var status: Int
    var headers: [(String, String)]
    var body: String

    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
}

/// Feeds raw request bytes through NIO's HTTP server pipeline and the handler, in memory, and parses the reply.
func exchange(
    _ request: String, endpoint: any WHEPEndpoint = RecordingEndpoint(), token: String? = nil, maxBody: Int = 64 * 1024,
    page: String? = "<html>player</html>"
) throws -> Response {
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
    try channel.pipeline.syncOperations.addHandler(WHEPRequestHandler(configuration: .init(
        endpoint: endpoint, path: "/whep", maxBodyBytes: maxBody, bearerToken: token, playerPage: page)))
    // A request NIO's parser rejects is answered (400, by the pipeline's error handler) and the error also reaches
    // the embedded channel, which rethrows it here: what matters is the response.
    do { try channel.writeInbound(ByteBuffer(string: request)) } catch {}
    var bytes = ByteBuffer()
    while var part = try channel.readOutbound(as: ByteBuffer.self) { bytes.writeBuffer(&part) }
    _ = try? channel.finish()
    let raw = Array(bytes.readableBytesView)
    let end = try #require((0..<max(0, raw.count - 3)).first { raw[$0..<($0 + 4)].elementsEqual("\r\n\r\n".utf8) },
                           "no complete response: \(String(decoding: raw, as: UTF8.self))")
    let lines = String(decoding: raw[..<end], as: UTF8.self).split(separator: "\r\n")
    let statusLine = lines[0].split(separator: " ")
    let headers = lines.dropFirst().map { line -> (String, String) in
        let colon = line.firstIndex(of: ":")!
        return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
    }
    return Response(status: Int(statusLine[1])!, headers: headers, body: String(decoding: raw[(end + 4)...], as: UTF8.self))
}

func post(_ body: String, contentType: String = "application/sdp", extra: String = "") -> String {
    "POST /whep HTTP/1.1\r\nHost: x\r\nContent-Type: \(contentType)\r\n\(extra)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
}

@Suite struct WHEPRequestHandlerTests {
    @Test func postAnOfferCreatesASession() throws {
        let endpoint = RecordingEndpoint()
        let response = try exchange(post("v=0\r\noffer\r\n"), endpoint: endpoint)
        #expect(response.status == 201)
        #expect(response.header("Location") == "/whep/s3ss10n-ID_1")
        #expect(response.header("Content-Type") == "application/sdp")
        #expect(response.body == "v=0\r\nanswer\r\n")
        #expect(response.header("Access-Control-Allow-Origin") == "*")
        #expect(response.header("Access-Control-Expose-Headers") == "Location", "a page on another origin must read Location")
        #expect(endpoint.offers.withLock { $0 } == ["v=0\r\noffer\r\n"])
    }

    @Test func contentTypeParametersAndCaseAreAccepted() throws {
        #expect(try exchange(post("v=0\r\n", contentType: "Application/SDP; charset=utf-8")).status == 201)
    }

    @Test func chunkedOfferIsReassembled() throws {
        let endpoint = RecordingEndpoint()
        let request = "POST /whep HTTP/1.1\r\nHost: x\r\nContent-Type: application/sdp\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4\r\nv=0\n\r\n6\r\noffer\n\r\n0\r\n\r\n"
        #expect(try exchange(request, endpoint: endpoint).status == 201)
        #expect(endpoint.offers.withLock { $0 } == ["v=0\noffer\n"])
    }

    /// Every refusal: its status, a reason in the body, and the endpoint not called when the server refuses first.
    static let refusals: [(name: String, request: String, refusal: WHEPRequestError?, status: Int, says: String)] = [
        ("not SDP", post("{}", contentType: "application/json"), nil, 415, "application/sdp"),
        ("no content type", "POST /whep HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nv=0", nil, 415, "application/sdp"),
        ("empty offer", post(""), nil, 400, "no SDP offer"),
        ("endpoint: malformed", post("v=0\r\n"), .badRequest("line 3: no '='"), 400, "line 3: no '='"),
        ("endpoint: no H.264", post("v=0\r\n"), .notAcceptable("the offer has no H.264"), 406, "no H.264"),
        ("endpoint: full", post("v=0\r\n"), .unavailable("8 viewers already"), 503, "8 viewers"),
        ("unknown path", "GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n", nil, 404, "/whep"),
        ("GET on the resource", "GET /whep HTTP/1.1\r\nHost: x\r\n\r\n", nil, 405, "GET is not allowed"),
        ("trickle", "PATCH /whep/s3ss10n-ID_1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/trickle-ice-sdpfrag\r\nContent-Length: 0\r\n\r\n",
         nil, 405, "trickle ICE is not supported"),
        ("delete unknown", "DELETE /whep/other HTTP/1.1\r\nHost: x\r\n\r\n", nil, 404, "no session other"),
        ("delete bad id", "DELETE /whep/../etc HTTP/1.1\r\nHost: x\r\n\r\n", nil, 404, "nothing at"),
    ]

    @Test(arguments: refusals)
    func refused(_ c: (name: String, request: String, refusal: WHEPRequestError?, status: Int, says: String)) throws {
        let endpoint = RecordingEndpoint(refusal: c.refusal)
        let response = try exchange(c.request, endpoint: endpoint)
        #expect(response.status == c.status, "\(c.name): \(response.body)")
        #expect(response.body.contains(c.says), "\(c.name): \(response.body)")
        #expect(response.header("Connection") == "close")
        if c.refusal == nil, c.status != 404 || !c.name.hasPrefix("delete") {
            #expect(endpoint.offers.withLock { $0 }.isEmpty, "\(c.name): the endpoint was asked")
        }
    }

    /// A 503 that says when to come back carries it as Retry-After (RFC 9110 §10.2.3, delay-seconds); others have none.
    @Test func fullServerSaysWhenToRetry() throws {
        let full = try exchange(post("v=0\r\n"), endpoint: RecordingEndpoint(refusal: .unavailable("4 viewers are still connecting", retryAfter: 2)))
        #expect(full.status == 503)
        #expect(full.header("Retry-After") == "2")
        #expect(full.body.contains("still connecting"))
        let refused = try exchange(post("v=0\r\n"), endpoint: RecordingEndpoint(refusal: .notAcceptable("no H.264")))
        #expect(refused.status == 406 && refused.header("Retry-After") == nil)
    }

    @Test func deleteEndsTheSession() throws {
        let endpoint = RecordingEndpoint()
        let response = try exchange("DELETE /whep/s3ss10n-ID_1 HTTP/1.1\r\nHost: x\r\n\r\n", endpoint: endpoint)
        #expect(response.status == 200)
        #expect(endpoint.ended.withLock { $0 } == ["s3ss10n-ID_1"])
    }

    @Test func preflightAllowsTheWHEPMethodsAndHeaders() throws {
        let response = try exchange(
            "OPTIONS /whep HTTP/1.1\r\nHost: x\r\nOrigin: http://page\r\nAccess-Control-Request-Method: POST\r\n\r\n")
        #expect(response.status == 204)
        #expect(response.header("Accept-Post") == "application/sdp")
        #expect(response.header("Access-Control-Allow-Methods")?.contains("POST") == true)
        #expect(response.header("Access-Control-Allow-Methods")?.contains("DELETE") == true)
        #expect(response.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
    }

    @Test func bodyOverTheCapIs413WithoutReadingIt() throws {
        let endpoint = RecordingEndpoint()
        let declared = try exchange(post(String(repeating: "a", count: 2000)), endpoint: endpoint, maxBody: 1024)
        #expect(declared.status == 413)
        let chunked = "POST /whep HTTP/1.1\r\nHost: x\r\nContent-Type: application/sdp\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "400\r\n" + String(repeating: "b", count: 1024) + "\r\n1\r\nc\r\n0\r\n\r\n"
        let streamed = try exchange(chunked, endpoint: endpoint, maxBody: 1024)
        #expect(streamed.status == 413)
        #expect(endpoint.offers.withLock { $0 }.isEmpty)
    }

    @Test func bearerTokenGuardsPostAndDeleteOnly() throws {
        let withToken = post("v=0\r\n", extra: "Authorization: Bearer s3cret\r\n")
        #expect(try exchange(withToken, token: "s3cret").status == 201)
        #expect(try exchange(post("v=0\r\n", extra: "Authorization: bearer s3cret\r\n"), token: "s3cret").status == 201)
        let wrong = try exchange(post("v=0\r\n", extra: "Authorization: Bearer s3cre7\r\n"), token: "s3cret")
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate") == "Bearer")
        #expect(try exchange(post("v=0\r\n"), token: "s3cret").status == 401)
        #expect(try exchange("DELETE /whep/s3ss10n-ID_1 HTTP/1.1\r\nHost: x\r\n\r\n", token: "s3cret").status == 401)
        #expect(try exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n", token: "s3cret").status == 200)
        #expect(try exchange("OPTIONS /whep HTTP/1.1\r\nHost: x\r\n\r\n", token: "s3cret").status == 204)
    }

    @Test func pageIsServedAtTheRoot() throws {
        let response = try exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(response.body == "<html>player</html>")
        #expect(try exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n", page: nil).status == 404)
    }

    @Test func garbageGetsA400NotACrash() throws {
        let response = try exchange("BLAH\r\n\r\n\u{1}\u{2}")
        #expect(response.status == 400)
    }

    static let resourceIDs: [(String, Bool)] = [
        ("abc", true), ("A-z_09", true), ("", false), ("../x", false), ("a b", false), ("a%20", false),
        (String(repeating: "a", count: 128), true), (String(repeating: "a", count: 129), false), ("é", false),
    ]

    @Test(arguments: resourceIDs)
    func resourceID(_ c: (String, Bool)) {
        #expect(WHEPRequestHandler.isResourceID(c.0) == c.1, "\(c.0)")
    }
}

/// The real server on 127.0.0.1: binds, answers over a socket, stops; a port in use is a typed error.
@Suite struct WHEPHTTPServerTests {
    @Test func servesOnLoopbackAndStops() throws {
        let server = WHEPHTTPServer(configuration: .init(host: "127.0.0.1", port: 0), endpoint: RecordingEndpoint())
        let port = try server.start()
        defer { server.stop() }
        #expect(port > 0)
        let other = WHEPHTTPServer(configuration: .init(host: "127.0.0.1", port: port), endpoint: RecordingEndpoint())
        defer { other.stop() }
        #expect(throws: WHEPServerError.self) { try other.start() }
    }

    @Test func defaultPageIsTheBuiltInPlayer() {
        let page = WHEPHTTPServer.Configuration().playerPage ?? ""
        #expect(page.contains("RTCPeerConnection") && page.contains("recvonly") && page.contains("requestVideoFrameCallback"))
    }
}

@Suite struct WHEPIdleTests {
    /// The server's pipeline closes a connection that stays silent past the read timeout.
    @Test func anIdleConnectionIsClosed() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
        try channel.pipeline.syncOperations.addHandler(WHEPRequestHandler(configuration: .init(
            endpoint: RecordingEndpoint(), path: "/whep", maxBodyBytes: 1024, bearerToken: nil, playerPage: nil)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        #expect(channel.isActive)
        channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        #expect(!channel.isActive)
    }
}
