extension WebRTCSDP.Description {
    /// The description as SDP text with CRLF line ends (RFC 8866 §5), in the order JSEP writes it (RFC 8829 §5.2):
    /// session lines and attributes, then each section's m= and c= lines, its transport attributes (mid, ICE, DTLS,
    /// candidates), direction and RTCP attributes, header extensions, msid, codecs (rtpmap, fmtp, rtcp-fb) and SSRCs.
    /// A section's ICE/DTLS attribute equal to the session-level one is left to inheritance (the parser copies it
    /// back), so `Description(parsing: d.text) == d` for every description the parser returns (unless the text grows
    /// past `WebRTCSDP.Limits.maxBytes`: `a=rtcp-fb:*` is written out per payload type).
    public var text: String {
        var lines = ["v=0"]
        lines.append("o=" + origin.text)
        lines.append("s=" + (sessionName.isEmpty ? "-" : sessionName))
        if let connection { lines.append("c=" + connection.text) }
        lines.append("t=0 0")
        if iceLite { lines.append("a=ice-lite") }
        for group in groups { lines.append("a=group:" + ([group.semantics] + group.mids).joined(separator: " ")) }
        if extmapAllowMixed { lines.append("a=extmap-allow-mixed") }
        if let msidSemantic { lines.append("a=msid-semantic:" + (msidSemantic.isEmpty ? "" : " \(msidSemantic)")) }
        if let iceUfrag { lines.append("a=ice-ufrag:\(iceUfrag)") }
        if let icePwd { lines.append("a=ice-pwd:\(icePwd)") }
        if !iceOptions.isEmpty { lines.append("a=ice-options:" + iceOptions.joined(separator: " ")) }
        for fingerprint in fingerprints { lines.append("a=fingerprint:\(fingerprint)") }
        if let setup { lines.append("a=setup:\(setup.rawValue)") }
        if let direction { lines.append("a=\(direction.rawValue)") }
        for attribute in otherAttributes { lines.append("a=" + attribute.text) }
        for section in media { lines += section.lines(inheriting: self) }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

extension WebRTCSDP.MediaSection {
    fileprivate func lines(inheriting session: WebRTCSDP.Description) -> [String] {
        var lines = ["m=" + ([kind, "\(port)", proto] + formats).joined(separator: " ")]
        if let connection, connection != session.connection { lines.append("c=" + connection.text) }
        if let mid { lines.append("a=mid:\(mid)") }
        if let iceUfrag, iceUfrag != session.iceUfrag { lines.append("a=ice-ufrag:\(iceUfrag)") }
        if let icePwd, icePwd != session.icePwd { lines.append("a=ice-pwd:\(icePwd)") }
        if !iceOptions.isEmpty, iceOptions != session.iceOptions {
            lines.append("a=ice-options:" + iceOptions.joined(separator: " "))
        }
        if fingerprints != session.fingerprints {
            for fingerprint in fingerprints { lines.append("a=fingerprint:\(fingerprint)") }
        }
        if let setup, setup != session.setup { lines.append("a=setup:\(setup.rawValue)") }
        for candidate in candidates { lines.append("a=candidate:" + candidate.attributeValue) }
        if endOfCandidates { lines.append("a=end-of-candidates") }
        if direction != (session.direction ?? .sendrecv) || session.direction == nil {
            lines.append("a=\(direction.rawValue)")
        }
        if rtcpMux { lines.append("a=rtcp-mux") }
        if rtcpRsize { lines.append("a=rtcp-rsize") }
        for extmap in extmaps { lines.append("a=extmap:" + extmap.attributeValue) }
        if let msid { lines.append("a=msid:\(msid)") }
        for codec in codecs {
            lines.append("a=rtpmap:" + codec.rtpmapValue)
            if !codec.parameters.isEmpty { lines.append("a=fmtp:\(codec.payloadType) \(codec.parameters.text)") }
            for feedback in codec.feedback { lines.append("a=rtcp-fb:\(codec.payloadType) \(feedback)") }
        }
        for attribute in ssrcAttributes { lines.append("a=ssrc:" + attribute.attributeValue) }
        for attribute in otherAttributes { lines.append("a=" + attribute.text) }
        return lines
    }
}
