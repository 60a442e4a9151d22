extension WebRTCSDP.Description {
    /// Parses SDP as browsers write it, and as leniently as they read it: CRLF or LF line ends, blank lines and
    /// unknown lines and attributes passed over or kept (`otherAttributes`), attributes in any order (an fmtp before
    /// its rtpmap, a candidate after the codecs), session-level ICE/DTLS attributes inherited by every section that
    /// has none.
    ///
    /// - Throws: `.limitExceeded` past `WebRTCSDP.Limits`; `.malformed` (with the line) for text that is not SDP — no
    ///   `v=0` first, a line without `x=`, a CR inside a line, an m=/o=/c= line with fields missing, a known attribute
    ///   whose value cannot be read (an rtpmap without a clock rate, a fingerprint that is not hex, a candidate
    ///   without `typ`…).
    public init(parsing text: String) throws(WebRTCError) {
        guard text.utf8.count <= WebRTCSDP.Limits.maxBytes else {
            throw .make(.limitExceeded, "the SDP is \(text.utf8.count) bytes, more than \(WebRTCSDP.Limits.maxBytes)")
        }
        var parser = WebRTCSDPParser()
        var lineNumber = 0
        // Lines are found in the UTF-8 bytes (LF, with any CR before it dropped): splitting by Character would pay
        // for grapheme breaking on every byte.
        let bytes = text.utf8
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            var end = newline
            while end > start, bytes[bytes.index(before: end)] == UInt8(ascii: "\r") { end = bytes.index(before: end) }
            lineNumber += 1
            // RFC 8866 §5: a CR only ever ends a line; one inside would not survive being written back.
            if bytes[start ..< end].contains(UInt8(ascii: "\r")) {
                throw .make(.malformed, "a carriage return inside a line (CR ends a line only before LF)", sdpLine: lineNumber)
            }
            if end > start { try parser.parse(line: Substring(text.utf8[start ..< end]), number: lineNumber) }
            start = newline == bytes.endIndex ? newline : bytes.index(after: newline)
        }
        self = try parser.finish()
    }
}

/// The parser's state between lines: the session so far and the media section being read.
struct WebRTCSDPParser {
    private var session = WebRTCSDP.Description()
    private var sawVersion = false
    private var current: PendingSection?

    /// A media section before its codecs are assembled: rtpmap, fmtp and rtcp-fb lines may come in any order.
    private struct PendingSection {
        var section: WebRTCSDP.MediaSection
        var directionGiven = false
        var rtpmaps: [UInt8: (name: String, clockRate: UInt32, channels: Int?)] = [:]
        var fmtps: [UInt8: WebRTCSDP.FormatParameters] = [:]
        /// Keyed by payload type; nil for `a=rtcp-fb:*`, which applies to every payload type.
        var feedback: [UInt8?: [WebRTCSDP.Feedback]] = [:]
    }

    mutating func parse(line: Substring, number: Int) throws(WebRTCError) {
        let bytes = line.utf8
        guard bytes.count >= 2, let type = bytes.first, bytes[bytes.index(after: bytes.startIndex)] == UInt8(ascii: "="),
              (UInt8(ascii: "a") ... UInt8(ascii: "z")).contains(type) else {
            throw .make(.malformed, "not an SDP line (<type>=<value>): \(line.prefix(80))", sdpLine: number)
        }
        let value = line.dropFirst(2)
        guard sawVersion else {
            guard type == UInt8(ascii: "v"), value == "0" else {
                throw .make(.malformed, "SDP must start with v=0, not \(line.prefix(80))", sdpLine: number)
            }
            sawVersion = true
            return
        }
        switch type {
        case UInt8(ascii: "o"):
            let fields = value.sdpFields
            guard fields.count == 6 else { throw .make(.malformed, "o= needs 6 fields, has \(fields.count)", sdpLine: number) }
            session.origin = .init(username: String(fields[0]), sessionID: String(fields[1]),
                                   sessionVersion: String(fields[2]), networkType: String(fields[3]),
                                   addressType: String(fields[4]), address: String(fields[5]))
        case UInt8(ascii: "s") where current == nil:
            session.sessionName = value.isEmpty ? "-" : String(value)  // RFC 8866 §5.3: "-" when there is no name
        case UInt8(ascii: "c"):
            let fields = value.sdpFields
            guard fields.count == 3 else { throw .make(.malformed, "c= needs 3 fields, has \(fields.count)", sdpLine: number) }
            let connection = WebRTCSDP.Connection(networkType: String(fields[0]), addressType: String(fields[1]),
                                                  address: String(fields[2]))
            if current == nil { session.connection = connection } else { current!.section.connection = connection }
        case UInt8(ascii: "m"):
            try startSection(value, number: number)
        case UInt8(ascii: "a"):
            let colon = value.firstIndex(of: ":")
            let name = colon.map { value[..<$0] } ?? value
            let attributeValue = colon.map { value[value.index(after: $0)...] }
            if current == nil {
                try sessionAttribute(name, attributeValue, number: number)
            } else {
                try mediaAttribute(name, attributeValue, number: number)
            }
        default:
            break  // t=, b=, i=, u=, e=, p=, z=, k=, r=: nothing WebRTC negotiates with
        }
    }

    mutating func finish() throws(WebRTCError) -> WebRTCSDP.Description {
        guard sawVersion else { throw .make(.malformed, "empty SDP (no v=0 line)") }
        closeSection()
        return session
    }

    private mutating func startSection(_ value: Substring, number: Int) throws(WebRTCError) {
        closeSection()
        guard session.media.count < WebRTCSDP.Limits.maxMediaSections else {
            throw .make(.limitExceeded, "more than \(WebRTCSDP.Limits.maxMediaSections) m= sections", sdpLine: number)
        }
        let fields = value.sdpFields
        guard fields.count >= 3 else {
            throw .make(.malformed, "m= needs <media> <port> <proto> <fmt>…, has \(fields.count) fields", sdpLine: number)
        }
        // <port>[/<number of ports>]
        guard let port = fields[1].split(separator: "/", omittingEmptySubsequences: false).first.flatMap({ UInt16($0) })
        else { throw .make(.malformed, "m= port is not a number 0…65535: \(fields[1])", sdpLine: number) }
        current = PendingSection(section: .init(
            kind: String(fields[0]), port: port, proto: String(fields[2]), formats: fields.dropFirst(3).map(String.init)))
    }

    /// Assembles the section's codecs in m= line order and applies the session-level defaults.
    private mutating func closeSection() {
        guard var pending = current else { return }
        current = nil
        var seen = Set<UInt8>()
        for format in pending.section.formats {
            guard let pt = UInt8(format), let map = pending.rtpmaps[pt], seen.insert(pt).inserted else { continue }
            pending.section.codecs.append(.init(
                payloadType: pt, encodingName: map.name, clockRate: map.clockRate, channels: map.channels,
                parameters: pending.fmtps[pt] ?? .init(), feedback: (pending.feedback[pt] ?? []) + (pending.feedback[nil] ?? [])))
        }
        var section = pending.section
        if !pending.directionGiven { section.direction = session.direction ?? .sendrecv }
        if section.connection == nil { section.connection = session.connection }
        if section.iceUfrag == nil { section.iceUfrag = session.iceUfrag }
        if section.icePwd == nil { section.icePwd = session.icePwd }
        if section.iceOptions.isEmpty { section.iceOptions = session.iceOptions }
        if section.fingerprints.isEmpty { section.fingerprints = session.fingerprints }
        if section.setup == nil { section.setup = session.setup }
        session.media.append(section)
    }

    private mutating func sessionAttribute(_ name: Substring, _ value: Substring?, number: Int) throws(WebRTCError) {
        switch name {
        case "group":
            let fields = (value ?? "").sdpFields
            guard let semantics = fields.first else { throw .make(.malformed, "a=group without semantics", sdpLine: number) }
            session.groups.append(.init(semantics: String(semantics), mids: fields.dropFirst().map(String.init)))
        case "ice-lite": session.iceLite = true
        case "msid-semantic": session.msidSemantic = value.map { String($0.trimmingSDPSpaces) } ?? ""
        case "extmap-allow-mixed": session.extmapAllowMixed = true
        case "ice-ufrag": session.iceUfrag = try Self.required(name, value, number)
        case "ice-pwd": session.icePwd = try Self.required(name, value, number)
        case "ice-options": session.iceOptions = (value ?? "").sdpFields.map(String.init)
        case "fingerprint": session.fingerprints.append(try Self.fingerprint(value, number))
        case "setup": session.setup = try Self.setup(value, number)
        case "sendrecv", "sendonly", "recvonly", "inactive": session.direction = WebRTCSDP.Direction(rawValue: String(name))
        default: session.otherAttributes.append(.init(String(name), value.map(String.init)))
        }
    }

    private mutating func mediaAttribute(_ name: Substring, _ value: Substring?, number: Int) throws(WebRTCError) {
        switch name {
        case "mid": if current!.section.mid == nil { current!.section.mid = try Self.required(name, value, number) }
        case "sendrecv", "sendonly", "recvonly", "inactive":
            current!.section.direction = WebRTCSDP.Direction(rawValue: String(name))!
            current!.directionGiven = true
        case "rtcp-mux": current!.section.rtcpMux = true
        case "rtcp-rsize": current!.section.rtcpRsize = true
        case "ice-ufrag": current!.section.iceUfrag = try Self.required(name, value, number)
        case "ice-pwd": current!.section.icePwd = try Self.required(name, value, number)
        case "ice-options": current!.section.iceOptions = (value ?? "").sdpFields.map(String.init)
        case "fingerprint": current!.section.fingerprints.append(try Self.fingerprint(value, number))
        case "setup": current!.section.setup = try Self.setup(value, number)
        case "candidate":
            guard let candidate = WebRTCSDP.Candidate(attributeValue: value ?? "") else {
                throw .make(.malformed, "a=candidate is not <foundation> <component> <transport> <priority> <address> <port> "
                                 + "typ <type> …: \((value ?? "").prefix(120))", sdpLine: number)
            }
            current!.section.candidates.append(candidate)
        case "end-of-candidates": current!.section.endOfCandidates = true
        case "rtpmap": try rtpmap(value ?? "", number)
        case "fmtp":
            let (pt, rest) = try Self.payloadTypeAndRest(name, value, number)
            if current!.fmtps[pt] == nil { current!.fmtps[pt] = .init(parsing: rest) }
        case "rtcp-fb":
            let fields = (value ?? "").sdpFields
            guard fields.count >= 2 else { throw .make(.malformed, "a=rtcp-fb needs <pt> <type>", sdpLine: number) }
            let key: UInt8?
            if fields[0] == "*" {
                key = nil
            } else {
                guard let pt = UInt8(fields[0]), pt < 128 else {
                    throw .make(.malformed, "a=rtcp-fb payload type \(fields[0]) is not 0…127 or *", sdpLine: number)
                }
                key = pt
            }
            current!.feedback[key, default: []].append(
                .init(String(fields[1]), fields.count > 2 ? fields[2...].joined(separator: " ") : nil))
        case "extmap": current!.section.extmaps.append(try Self.extmap(value ?? "", number))
        case "msid": current!.section.msid = value.map(String.init)
        case "ssrc":
            let text = value ?? ""
            let fields = text.split(separator: " ", maxSplits: 1)
            guard fields.count == 2, let ssrc = UInt32(fields[0]) else {
                throw .make(.malformed, "a=ssrc is not <ssrc> <attribute>[:<value>]: \(text.prefix(80))", sdpLine: number)
            }
            let colon = fields[1].firstIndex(of: ":")
            current!.section.ssrcAttributes.append(.init(
                ssrc: ssrc, name: String(colon.map { fields[1][..<$0] } ?? fields[1]),
                value: colon.map { String(fields[1][fields[1].index(after: $0)...]) }))
        default:
            current!.section.otherAttributes.append(.init(String(name), value.map(String.init)))
        }
    }

    private mutating func rtpmap(_ value: Substring, _ number: Int) throws(WebRTCError) {
        let fields = value.sdpFields
        let encoding = fields.count == 2 ? fields[1].split(separator: "/", omittingEmptySubsequences: false) : []
        guard fields.count == 2, let pt = UInt8(fields[0]), pt < 128, (2 ... 3).contains(encoding.count),
              !encoding[0].isEmpty, let clockRate = UInt32(encoding[1]), clockRate > 0 else {
            throw .make(.malformed, "a=rtpmap is not <pt 0…127> <name>/<clock rate>[/<channels>]: \(value.prefix(80))", sdpLine: number)
        }
        var channels: Int?
        if encoding.count == 3 {
            guard let count = Int(encoding[2]), count > 0 else {
                throw .make(.malformed, "a=rtpmap channel count is not a number: \(value.prefix(80))", sdpLine: number)
            }
            channels = count
        }
        if current!.rtpmaps[pt] == nil { current!.rtpmaps[pt] = (String(encoding[0]), clockRate, channels) }
    }

    private static func required(_ name: Substring, _ value: Substring?, _ number: Int) throws(WebRTCError) -> String {
        guard let value, !value.trimmingSDPSpaces.isEmpty else { throw .make(.malformed, "a=\(name) without a value", sdpLine: number) }
        return String(value.trimmingSDPSpaces)
    }

    private static func fingerprint(_ value: Substring?, _ number: Int) throws(WebRTCError) -> WebRTCSDP.Fingerprint {
        guard let fingerprint = WebRTCSDP.Fingerprint(attributeValue: value ?? "") else {
            throw .make(.malformed, "a=fingerprint is not <hash function> <hex pairs joined by colons> of the hash's length: "
                             + "\((value ?? "").prefix(120))", sdpLine: number)
        }
        return fingerprint
    }

    private static func setup(_ value: Substring?, _ number: Int) throws(WebRTCError) -> WebRTCSDP.SetupRole {
        guard let role = value.flatMap({ WebRTCSDP.SetupRole(rawValue: String($0.trimmingSDPSpaces).lowercased()) }) else {
            throw .make(.malformed, "a=setup is not active, passive, actpass or holdconn: \((value ?? "").prefix(40))", sdpLine: number)
        }
        return role
    }

    private static func payloadTypeAndRest(_ name: Substring, _ value: Substring?, _ number: Int) throws(WebRTCError)
        -> (UInt8, Substring)
    {
        let text = value ?? ""
        let parts = text.split(separator: " ", maxSplits: 1)
        guard let first = parts.first, let pt = UInt8(first), pt < 128 else {
            throw .make(.malformed, "a=\(name) does not start with a payload type 0…127: \(text.prefix(80))", sdpLine: number)
        }
        return (pt, parts.count == 2 ? parts[1] : "")
    }

    private static func extmap(_ value: Substring, _ number: Int) throws(WebRTCError) -> WebRTCSDP.Extmap {
        let fields = value.sdpFields
        guard fields.count >= 2 else { throw .make(.malformed, "a=extmap needs <id> <uri>", sdpLine: number) }
        let idAndDirection = fields[0].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        // RFC 8285 §5: 1–14 for one-byte headers, 1–255 for two-byte ones (4096–4351 in RFC 5285 are gone).
        guard let id = UInt16(idAndDirection[0]), (1 ... 255).contains(id) else {
            throw .make(.malformed, "a=extmap id \(idAndDirection[0]) is not 1…255", sdpLine: number)
        }
        var direction: WebRTCSDP.Direction?
        if idAndDirection.count == 2 {
            guard let given = WebRTCSDP.Direction(rawValue: String(idAndDirection[1])) else {
                throw .make(.malformed, "a=extmap direction \(idAndDirection[1]) is not sendrecv, sendonly, recvonly or inactive",
                                 sdpLine: number)
            }
            direction = given
        }
        return .init(id: id, direction: direction, uri: String(fields[1]),
                     attributes: fields.count > 2 ? fields[2...].joined(separator: " ") : nil)
    }
}
