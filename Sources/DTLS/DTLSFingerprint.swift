import MediaCore

/// A certificate fingerprint as SDP carries it (RFC 8122 §5, `a=fingerprint:sha-256 AB:CD:…`): the hash function's
/// name and the digest of the certificate's DER encoding.
///
/// Only SHA-256 is produced and accepted: it is what browsers, pion, str0m, Janus and aiortc write, and RFC 8122
/// §5 requires peers to support it.
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The hash function's name as RFC 8122 §5 writes it (the IANA "Hash Function Textual Names" registry).
    public static let sha256Name = "sha-256"
    public static let sha256Length = 32

    /// Lower case, as in the registry.
    public let hashFunction: String
    public let digest: [UInt8]

    /// A SHA-256 digest; fails unless it is 32 bytes.
    public init(sha256 digest: [UInt8]) throws(DTLSError) {
        guard digest.count == Self.sha256Length else {
            throw .make(.invalidFingerprint, "a SHA-256 fingerprint has \(Self.sha256Length) bytes, not \(digest.count)")
        }
        hashFunction = Self.sha256Name
        self.digest = digest
    }

    /// Parses the value of an `a=fingerprint:` attribute: `<hash-func> SP <hex>:<hex>:…` (RFC 8122 §5: the hash
    /// name is case-insensitive, each byte two hex digits of either case, separated by colons, nothing after).
    public init(sdpValue text: Substring) throws(DTLSError) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw .make(.invalidFingerprint, "expected '<hash function> <XX:XX:…>', got \(parts.count) space-separated fields")
        }
        let name = parts[0].lowercased()
        guard name == Self.sha256Name else {
            throw DTLSError(code: .unsupported, reason: "fingerprint hash function '\(name)' (only \(Self.sha256Name))")
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.sha256Length)
        for (index, pair) in parts[1].split(separator: ":", omittingEmptySubsequences: false).enumerated() {
            // Not UInt8(_:radix:), which also takes a sign ("+F").
            let digits = Array(pair.utf8)
            guard digits.count == 2, let high = Hex.digitValue(digits[0]), let low = Hex.digitValue(digits[1]) else {
                throw .make(.invalidFingerprint, "byte \(index) of the fingerprint is '\(pair)', not two hex digits")
            }
            digest.append(high << 4 | low)
        }
        try self.init(sha256: digest)
    }

    public init(sdpValue text: String) throws(DTLSError) { try self.init(sdpValue: text[...]) }

    /// `sha-256 AB:CD:…` with upper-case hex, the form browsers write after `a=fingerprint:`.
    public var sdpValue: String { hashFunction + " " + hexPairs }

    /// The digest as upper-case hex pairs separated by colons.
    public var hexPairs: String { Hex.encode(digest, uppercase: true, separator: UInt8(ascii: ":")) }

    public var description: String { sdpValue }
}
