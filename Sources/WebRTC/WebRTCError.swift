import MediaCore

/// The one error type of the WebRTC module: STUN and ICE (RFC 8489, RFC 8445, RFC 8839 candidate lines) and SDP
/// offer/answer (RFC 8866 syntax, RFC 8829 JSEP, RFC 6184/7798 codec parameters, RFC 8843 BUNDLE, RFC 5763/8842
/// DTLS roles, RFC 8839 ICE attributes).
///
/// Shaped like `RTPError`: an extensible `code` that tests compare on, a `reason` that says what is wrong and, for a
/// refused offer or answer, what would work; where a parser stopped — the byte `offset` of a STUN message or the
/// 1-based `sdpLine` of SDP text — when there is one; and the call site. Throw sites use `CodedError`'s factory:
/// `throw .make(.notSTUN, "…", offset: 4)`, `throw .make(.malformed, "…", sdpLine: 3)`.
public struct WebRTCError: ByteOffsetCodedError {
    public let code: Code
    public let reason: String
    /// Byte offset into a STUN message, when the error is about one.
    public let offset: Int?
    /// The line of the SDP text (1-based) the error is about, when it is about one.
    public let sdpLine: Int?
    public let file: String
    public let line: UInt

    public init(code: Code, reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) {
        self.init(code: code, reason: reason, offset: offset, sdpLine: nil, file: file, line: line)
    }

    public init(code: Code, reason: String, offset: Int? = nil, sdpLine: Int?, file: String = #fileID,
                line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.offset = offset
        self.sdpLine = sdpLine
        self.file = file
        self.line = line
    }

    public var detail: String? { sdpLine.map { "SDP line \($0)" } ?? offset.map { "at byte \($0)" } }

    /// `throw .make(.malformed, "…", sdpLine: 3)`.
    @inline(never)
    static func make(_ code: Code, _ reason: String, sdpLine: Int?, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: code, reason: reason, sdpLine: sdpLine, file: file, line: line)
    }
}

// STUN and ICE.
extension ErrorCode where Owner == WebRTCError {
    /// The input ended in the middle of a structure (a header, an attribute, its padding).
    public static var truncated: Self { Self("truncated") }
    /// A field holds a value the RFC forbids (the top two bits of the type set, a length not a multiple of 4, an
    /// XOR-MAPPED-ADDRESS of the wrong size…).
    public static var invalidValue: Self { Self("invalidValue") }
    /// The magic cookie is not 0x2112A442: an RFC 3489 message, or not STUN at all.
    public static var notSTUN: Self { Self("notSTUN") }
    /// Bytes after the message the length field announces.
    public static var trailingData: Self { Self("trailingData") }
    /// FINGERPRINT is present and does not match the CRC-32 of the message (RFC 8489 §14.7).
    public static var fingerprintMismatch: Self { Self("fingerprintMismatch") }
    /// A value too large for its wire field (a username over 512 bytes, a message over 65 535 bytes…).
    public static var fieldOverflow: Self { Self("fieldOverflow") }
    /// A hostile-input bound (a named constant: of STUN, or of `WebRTCSDP.Limits`) was exceeded.
    public static var limitExceeded: Self { Self("limitExceeded") }
    /// An `a=candidate` line (RFC 8839 §5.1) or ICE credential that cannot be read.
    public static var invalidCandidate: Self { Self("invalidCandidate") }
    /// ICE credentials outside RFC 8839 §5.4 (ufrag 4–256, pwd 22–256 ice-chars).
    public static var invalidCredentials: Self { Self("invalidCredentials") }
}

// SDP offer/answer.
extension ErrorCode where Owner == WebRTCError {
    /// Text that is not SDP: a line without `x=`, a first line other than `v=0`, a field that must be a number and
    /// is not, a known attribute whose value cannot be read.
    public static var malformed: Self { Self("malformed") }
    /// Well-formed SDP that lacks what WebRTC requires of it: BUNDLE, rtcp-mux, ICE credentials, a DTLS fingerprint,
    /// a usable setup role, a video section in the right direction.
    public static var unacceptable: Self { Self("unacceptable") }
    /// The other side offers or accepts no codec this encoder's stream can be sent as (profile, packetization mode).
    public static var noCompatibleCodec: Self { Self("noCompatibleCodec") }
    /// Our own local values cannot be written into SDP (an ICE ufrag shorter than 4 characters, a password shorter
    /// than 22, characters outside ice-char, an empty fingerprint).
    public static var invalidLocalParameters: Self { Self("invalidLocalParameters") }
}
