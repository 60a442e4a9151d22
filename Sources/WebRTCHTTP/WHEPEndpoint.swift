/// What the WHEP HTTP layer asks of whoever owns the WebRTC sessions (draft-ietf-wish-whep): make a session from a
/// viewer's SDP offer, end one. The HTTP server (`WHEPHTTPServer`) does the protocol around it — routes, CORS,
/// the body cap, the bearer token, `201 Created` with `Location` — and knows nothing of ICE, DTLS or the encoder.
///
/// Called on the server's event loop: return quickly (build the answer, start the session's transport; never wait
/// for ICE or DTLS to finish).
public protocol WHEPEndpoint: Sendable {
    /// `POST /whep` with an `application/sdp` offer.
    /// - Returns: the answer and the new session's identifier, which becomes the `Location` `/whep/<id>`: URL-safe
    ///   (`[A-Za-z0-9_-]`) and unguessable (it is the only credential DELETE needs).
    /// - Throws: `WHEPRequestError` with the status to answer (406 for an offer with nothing acceptable, 400 for one
    ///   that is malformed, 503 when no more viewers fit) and a one-line reason for the body.
    func createSession(offer: String) throws(WHEPRequestError) -> WHEPSession
    /// `DELETE /whep/<id>`: ends the session. False when there is no such session (404).
    func endSession(id: String) -> Bool
}

/// A session `WHEPEndpoint.createSession` made.
public struct WHEPSession: Sendable, Hashable {
    /// The SDP answer (CRLF line endings).
    public var answer: String
    /// The resource identifier (`[A-Za-z0-9_-]+`).
    public var id: String

    public init(answer: String, id: String) {
        self.answer = answer
        self.id = id
    }
}

/// A request the endpoint refuses, with the HTTP status to answer and why (sent as the `text/plain` body).
public struct WHEPRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var reason: String
    /// Seconds after which the player may try again (sent as `Retry-After`; for 503).
    public var retryAfter: Int?

    public init(status: Int, reason: String, retryAfter: Int? = nil) {
        self.status = status
        self.reason = reason
        self.retryAfter = retryAfter
    }

    /// 400: the offer cannot be read.
    public static func badRequest(_ reason: String) -> Self { Self(status: 400, reason: reason) }
    /// 406: the offer is well formed but offers nothing this server can send (no H.264 it can answer, …).
    public static func notAcceptable(_ reason: String) -> Self { Self(status: 406, reason: reason) }
    /// 503: no more sessions fit (now: `retryAfter` seconds says when to try again).
    public static func unavailable(_ reason: String, retryAfter: Int? = nil) -> Self {
        Self(status: 503, reason: reason, retryAfter: retryAfter)
    }

    public var description: String { "\(status): \(reason)" }
}
