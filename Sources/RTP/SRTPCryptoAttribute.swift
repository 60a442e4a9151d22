/// Reads the SDP `a=crypto:` attribute of SDES (RFC 4568 §9.1), for the forms rtenc can honour:
///
///     a=crypto:<tag> <crypto-suite> inline:<base64 key||salt>[|<lifetime>]
///
///     crypto-attribute = "crypto:" tag 1*WSP crypto-suite 1*WSP key-params *(1*WSP session-param)
///     key-params       = key-param *(";" key-param)
///     key-info (SRTP)  = key-salt ["|" lifetime] ["|" mki-value ":" mki-length]   (RFC 4568 §6.1)
///
/// A lifetime is accepted and not enforced (a stream would need 2^31 packets to reach the default). MKIs, several
/// keys and session parameters (KDR, UNENCRYPTED_SRTP, …) change what the keys mean and are refused as unsupported.
/// Errors name the part that is wrong but never quote the key.
extension SRTPConfiguration {
    /// Longest attribute value read; a real one is about 70 characters (hostile-input bound).
    static let maxCryptoAttributeLength = 1024

    /// Parses the value after `a=crypto:`; returns its tag and the configuration it describes.
    public static func parse(cryptoAttribute value: Substring) throws(RTPError) -> (tag: UInt32, configuration: SRTPConfiguration) {
        guard value.utf8.count <= maxCryptoAttributeLength else {
            throw .make(.limitExceeded, "a=crypto of \(value.utf8.count) characters (at most \(maxCryptoAttributeLength))")
        }
        let fields = value.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 3 else { throw .make(.invalidSDP, "a=crypto needs a tag, a crypto suite and key parameters") }
        // RFC 4568 §9.1: tag = 1*9DIGIT.
        guard fields[0].utf8.count <= 9, fields[0].utf8.allSatisfy({ (0x30 ... 0x39).contains($0) }), let tag = UInt32(fields[0]) else {
            throw .make(.invalidSDP, "a=crypto tag is not 1…9 digits")
        }
        guard let suite = Suite(rawValue: String(fields[1])) else {
            throw .make(.unsupported, "a=crypto suite \(fields[1].prefix(40)); rtenc has \(Suite.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard fields.count == 3 else { throw .make(.unsupported, "a=crypto session parameters (\(fields[3].prefix(20))…)") }
        let keyParams = fields[2]
        guard !keyParams.contains(";") else { throw .make(.unsupported, "a=crypto with several keys") }
        guard keyParams.hasPrefix("inline:") else { throw .make(.unsupported, "a=crypto key method other than inline") }
        let keyInfo = keyParams.dropFirst("inline:".count).split(separator: "|", omittingEmptySubsequences: false)
        guard keyInfo.count <= 2 else { throw .make(.unsupported, "a=crypto key with an MKI") }
        if keyInfo.count == 2 {
            let lifetime = keyInfo[1]
            guard !lifetime.contains(":") else { throw .make(.unsupported, "a=crypto key with an MKI") }
            let digits = lifetime.hasPrefix("2^") ? lifetime.dropFirst(2) : lifetime
            guard !digits.isEmpty, digits.utf8.count <= 20, digits.utf8.allSatisfy({ (0x30 ... 0x39).contains($0) }) else {
                throw .make(.invalidSDP, "a=crypto key lifetime is not [2^]digits")
            }
        }
        return (tag, try SRTPConfiguration(suite: suite, base64: keyInfo[0]))
    }
}
