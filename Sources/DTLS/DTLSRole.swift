/// Which side of the DTLS handshake an endpoint takes. In WebRTC the SDP's `a=setup` decides (RFC 5763 §5, RFC 8842
/// §5.2): `active` opens the handshake and is the DTLS **client**, `passive` waits for it and is the **server**;
/// `actpass` (an offer) leaves the choice to the answerer.
public enum DTLSRole: String, Sendable, CaseIterable {
    case client
    case server

    /// The role of the side whose own `a=setup` value is `setup` (`active` → client, `passive` → server); nil for
    /// `actpass`, `holdconn` or anything else, which name no role.
    public init?(localSetup setup: String) {
        switch setup.lowercased() {
        case "active": self = .client
        case "passive": self = .server
        default: return nil
        }
    }

    /// The value of this side's `a=setup` in an answer.
    public var setupAttribute: String { self == .client ? "active" : "passive" }

    public var peer: DTLSRole { self == .client ? .server : .client }
}
