// The WHEP HTTP layer (NIO's HTTP/1.1 server codec and rtenc's WHEPRequestHandler, as `WHEPHTTPServer` sets them up
// on each connection) fed arbitrary bytes through an EmbeddedChannel: a request as it would arrive on the socket.
// The first byte picks the set-up: bit 0, a bearer token is required; bits 1–2, what the endpoint does with an
// offer (create a session; refuse 400, 406, or 503 with Retry-After); bit 3, a 256-byte body cap instead of 64 KiB;
// bits 4–7, how many pieces the rest is written in (a request arriving over several reads).
//
// Properties: every byte written back parses as a sequence of HTTP/1.1 responses with a Content-Length that matches
// its body (none on a 204) and `Connection: close`; no status outside the WHEP server's set (never a 5xx of our own: 503 only when
// the endpoint refused with it, and then with Retry-After); 2xx only for what earns it — 201 when the endpoint made a
// session (and then with its Location and answer), 200 for the page or a DELETE of the session that exists, 204 for
// a preflight — so garbage always gets a 4xx.
import FuzzSupport
import NIOCore
import NIOEmbedded
import NIOHTTP1
import WebRTCHTTP

let sessionID = "fuzz-Session_1"
let answer = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
let page = "<!doctype html><title>player</title>"

/// Answers or refuses as told; counts what it was asked (single-threaded: the EmbeddedChannel runs on this thread).
final class FuzzEndpoint: WHEPEndpoint, @unchecked Sendable {
    let refusal: WHEPRequestError?
    var created = 0
    var ended = 0

    init(refusal: WHEPRequestError?) { self.refusal = refusal }

    func createSession(offer: String) throws(WHEPRequestError) -> WHEPSession {
        check(!offer.isEmpty, "an empty offer reached the endpoint")
        if let refusal { throw refusal }
        created += 1
        return WHEPSession(answer: answer, id: sessionID)
    }

    func endSession(id: String) -> Bool {
        guard id == sessionID else { return false }
        ended += 1
        return true
    }
}

struct Response {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
}

/// The responses in `bytes`, in order; a property failure when they are not well-formed HTTP/1.1.
func parseResponses(_ bytes: [UInt8]) -> [Response] {
    var responses: [Response] = []
    var rest = bytes[...]
    while !rest.isEmpty {
        let headEnd = rest.indices.first { rest[$0...].starts(with: "\r\n\r\n".utf8) }
        guard let headEnd else {
            check(false, "a response without the end of its head: \(String(decoding: rest, as: UTF8.self))")
            return responses
        }
        let lines = String(decoding: rest[..<headEnd], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines[0].split(separator: " ", maxSplits: 2)
        check(statusLine.count >= 2 && statusLine[0] == "HTTP/1.1", "status line \(lines[0])")
        let status = Int(statusLine[1]) ?? -1
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            let colon = line.firstIndex(of: ":")
            check(colon != nil, "header line without a colon: \(line)")
            headers.append((String(line[..<colon!]), String(line[line.index(after: colon!)...].drop { $0 == " " })))
        }
        var response = Response(status: status, headers: headers, body: [])
        // A 204 has no body and, by RFC 9110 §8.6, no Content-Length (NIO's encoder drops it).
        let length = response.header("content-length").flatMap(Int.init) ?? (status == 204 ? 0 : nil)
        check(length != nil, "a response without Content-Length (status \(status))")
        let bodyStart = headEnd + 4
        check(rest.endIndex - bodyStart >= length!, "a body shorter than its Content-Length")
        response.body = Array(rest[bodyStart ..< bodyStart + length!])
        rest = rest[(bodyStart + length!)...]
        responses.append(response)
    }
    return responses
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWHEPHTTP(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    var input = FuzzInput(fuzzBytes(data, size)[...])
    let control = input.byte()
    let token: String? = control & 1 != 0 ? "s3cret" : nil
    let refusal: WHEPRequestError? = switch (control >> 1) & 3 {
    case 1: .badRequest("malformed offer")
    case 2: .notAcceptable("no H.264")
    case 3: .unavailable("full", retryAfter: 2)
    default: nil
    }
    let maxBody = control & 8 != 0 ? 256 : 64 * 1024
    let pieces = Int(control >> 4) + 1
    let request = Array(input.rest())

    let endpoint = FuzzEndpoint(refusal: refusal)
    let channel = EmbeddedChannel()
    let configuration = WHEPHTTPServer.Configuration(port: 0, maxBodyBytes: maxBody, bearerToken: token, playerPage: page)
    try! WHEPHTTPServer.addHandlers(to: channel.pipeline.syncOperations, configuration: configuration, endpoint: endpoint)
    // Connected, as an accepted socket is: the handler's close then ends the reading below.
    try! channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 49152)).wait()
    check(channel.isActive, "the embedded channel did not connect")
    // A request NIO's parser rejects is answered with 400 by the pipeline's error handler, and the error also reaches
    // the embedded channel, which rethrows it: what matters is what was written back.
    let step = max(1, (request.count + pieces - 1) / pieces)
    var offset = 0
    while offset < request.count, channel.isActive {
        let end = min(request.count, offset + step)
        do { try channel.writeInbound(ByteBuffer(bytes: request[offset ..< end])) } catch {}
        offset = end
    }
    var written: [UInt8] = []
    while let part = try? channel.readOutbound(as: ByteBuffer.self) { written += part.readableBytesView }
    _ = try? channel.finish()
    channel.embeddedEventLoop.run()  // what the close left scheduled, so nothing outlives the run

    for response in parseResponses(written) {
        let allowed: Set<Int> = [200, 201, 204, 400, 401, 404, 405, 406, 413, 415, 503]
        check(allowed.contains(response.status), "status \(response.status)")
        check(response.header("connection")?.lowercased() == "close", "status \(response.status) keeps the connection open")
        switch response.status {
        case 201:
            check(endpoint.created > 0, "201 without a session made")
            check(response.header("location") == "/whep/" + sessionID, "201 with Location \(response.header("location") ?? "none")")
            check(response.body.elementsEqual(answer.utf8), "201 without the answer")
        case 200:
            check(response.body.elementsEqual(page.utf8) || endpoint.ended > 0, "200 for neither the page nor a DELETE")
        case 503:
            check(refusal?.status == 503, "503 the endpoint did not ask for")
            check(response.header("retry-after") == "2", "503 without the endpoint's Retry-After")
        case 401:
            check(token != nil, "401 without a token configured")
        default:
            break
        }
    }
    return 0
}
