import WebRTCTransport

/// `WebRTCServer` behind the WHEP HTTP layer: `rtenc serve` and an embedder hand this to `WHEPHTTPServer`. The
/// server's typed refusals become their HTTP status (400 malformed, 406 nothing acceptable, 503 full or too many connecting, with Retry-After) with the reason
/// as the body.
public struct WebRTCServerEndpoint: WHEPEndpoint {
    public let server: WebRTCServer

    public init(_ server: WebRTCServer) {
        self.server = server
    }

    public func createSession(offer: String) throws(WHEPRequestError) -> WHEPSession {
        do {
            let (answer, id) = try server.createSession(offer: offer)
            return WHEPSession(answer: answer, id: id)
        } catch {
            throw WHEPRequestError(status: error.httpStatus, reason: error.reason, retryAfter: error.retryAfterSeconds)
        }
    }

    public func endSession(id: String) -> Bool { server.endSession(id: id) }
}
