/// An ICE username fragment and password (RFC 8445 §5.3, RFC 8839 §5.4): what `a=ice-ufrag` and `a=ice-pwd` carry.
/// The checks' USERNAME is "<receiver's ufrag>:<sender's ufrag>" and MESSAGE-INTEGRITY is keyed with the receiver's
/// password.
public struct ICECredentials: Sendable, Hashable {
    public let ufrag: String
    public let pwd: String

    /// RFC 8839 §5.4: ice-ufrag 4–256 ice-chars, ice-pwd 22–256 ice-chars.
    public static let ufragLengths = 4...256
    public static let pwdLengths = 22...256
    /// Lengths `random(using:)` draws: at least 24 bits of ufrag (RFC 8445 §5.3) and 128 of password.
    public static let generatedUfragLength = 8
    public static let generatedPwdLength = 24

    /// ice-char = ALPHA / DIGIT / "+" / "/" (RFC 8839 §5.4): 64 characters, 6 bits each.
    static let iceChars: [Character] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    /// Credentials from SDP; refused when a length or a character is outside RFC 8839 §5.4.
    public init(ufrag: String, pwd: String) throws(WebRTCError) {
        guard Self.ufragLengths.contains(ufrag.count), ufrag.allSatisfy(Self.isICEChar) else {
            throw .make(.invalidCredentials, "ice-ufrag \"\(ufrag)\": 4 to 256 characters from A–Z a–z 0–9 + /")
        }
        guard Self.pwdLengths.contains(pwd.count), pwd.allSatisfy(Self.isICEChar) else {
            throw .make(.invalidCredentials, "ice-pwd of \(pwd.count) characters: 22 to 256 from A–Z a–z 0–9 + /")
        }
        self.ufrag = ufrag
        self.pwd = pwd
    }

    /// Fresh credentials (8 and 24 characters), each character uniform over the 64 ice-chars: 64 divides 2^64, so
    /// taking the low 6 bits of a uniform draw has no bias.
    public static func random(using random: inout some RandomNumberGenerator) -> ICECredentials {
        func draw(_ count: Int) -> String {
            String((0..<count).map { _ in iceChars[Int((random.next() as UInt64) & 63)] })
        }
        // Both lengths are inside RFC 8839's ranges and every character is an ice-char.
        return try! ICECredentials(ufrag: draw(generatedUfragLength), pwd: draw(generatedPwdLength))
    }

    static func isICEChar(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "+" || c == "/")
    }
}
