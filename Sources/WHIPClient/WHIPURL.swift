/// An absolute http or https URL, split as far as WHIP needs it, and RFC 3986 §5.2 reference resolution for the
/// `Location` a server answers (OBS and RFC 9725 allow relative ones: "/whip/session/1", "session/1",
/// "//host/path"). Pure: no Foundation.
public struct WHIPURL: Sendable, Hashable, CustomStringConvertible {
    /// "http" or "https", lower-cased.
    public let scheme: String
    /// host[:port], as written (an IPv6 host in brackets).
    public let authority: String
    /// From the first "/" after the authority ("/" when there is none), query included, fragment dropped.
    public let pathAndQuery: String

    public var text: String { "\(scheme)://\(authority)\(pathAndQuery)" }

    /// The host without port or IPv6 brackets (a name or a numeric address).
    public var host: String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex) ..< close])
        }
        return String(authority.prefix { $0 != ":" })
    }
    public var description: String { text }

    /// - Throws: `.badURL` unless the text is an absolute http or https URL with a host (and no user info, spaces
    ///   or control characters).
    public init(parsing text: String) throws(WHIPClientError) {
        guard let colon = text.firstIndex(of: ":"), text[text.index(after: colon)...].hasPrefix("//") else {
            throw WHIPClientError(code: .badURL, reason: "\"\(text)\" is not an absolute URL (http://host[:port]/path or https://…)")
        }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw WHIPClientError(code: .badURL, reason: "\"\(text)\": WHIP needs an http or https URL, not \(scheme)")
        }
        guard !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw WHIPClientError(code: .badURL, reason: "the URL has spaces or control characters")
        }
        var rest = text[text.index(colon, offsetBy: 3)...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<end]
        guard !authority.isEmpty, !authority.contains("@"), authority.first != ":" else {
            throw WHIPClientError(code: .badURL, reason: "\"\(text)\" has no host (or has user info, which rtenc does not send)")
        }
        if let portColon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            let port = authority[authority.index(after: portColon)...]
            guard let number = Int(port), (1 ... 65535).contains(number) else {
                throw WHIPClientError(code: .badURL, reason: "\"\(text)\": port \"\(port)\" is not 1…65535")
            }
        }
        var path = String(rest[end...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        self.scheme = scheme
        self.authority = String(authority)
        pathAndQuery = path
    }

    /// The URL a reference (a `Location` value) names, resolved against this one (RFC 3986 §5.2.2, with the
    /// dot-segment removal of §5.2.4); nil for a reference with another scheme or one that cannot be parsed.
    public func resolving(_ reference: String) -> WHIPURL? {
        if reference.contains("://") { return try? WHIPURL(parsing: reference) }
        if reference.hasPrefix("//") { return try? WHIPURL(parsing: scheme + ":" + reference) }
        var reference = Substring(reference)
        if let hash = reference.firstIndex(of: "#") { reference = reference[..<hash] }
        // A colon before any slash starts another scheme (mailto:, rtsp:…): not ours to follow.
        if let colon = reference.firstIndex(of: ":"), reference.firstIndex(of: "/").map({ colon < $0 }) ?? true { return nil }
        guard !reference.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
        let basePath = String(pathAndQuery.prefix { $0 != "?" })
        let merged: String
        if reference.isEmpty {
            return self
        } else if reference.hasPrefix("/") {
            merged = String(reference)
        } else if reference.hasPrefix("?") {
            merged = basePath + reference
        } else {
            merged = String(basePath[...(basePath.lastIndex(of: "/") ?? basePath.startIndex)]) + reference
        }
        return try? WHIPURL(parsing: "\(scheme)://\(authority)\(Self.removingDotSegments(merged))")
    }

    /// RFC 3986 §5.2.4 on a path (its query kept as it is).
    static func removingDotSegments(_ pathAndQuery: String) -> String {
        let query = pathAndQuery.firstIndex(of: "?").map { String(pathAndQuery[$0...]) } ?? ""
        let path = pathAndQuery.prefix { $0 != "?" }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".": if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default: output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/") + query
    }
}
