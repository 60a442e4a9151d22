import MediaCore

/// What goes wrong reading WebRTC SDP or negotiating with it (RFC 8866 syntax, RFC 8829 JSEP, RFC 6184/7798 codec
/// parameters, RFC 8843 BUNDLE, RFC 5763/8842 DTLS roles, RFC 8839 ICE attributes).
///
/// Shaped like `RTPError`: an extensible `code` that tests compare on, a `reason` that says what is wrong and, for a
/// refused offer or answer, what would work; the 1-based `line` of the SDP text where a parser stopped (when there is
/// one), and the call site.
public struct WebRTCSDPError: CodedError {
    public typealias Code = ErrorCode<WebRTCSDPError>

    public let code: Code
    public let reason: String
    /// The line of the SDP text (1-based) the error is about, when it is about one.
    public let sdpLine: Int?
    public let file: String
    public let line: UInt

    public init(code: Code, reason: String, sdpLine: Int? = nil, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.sdpLine = sdpLine
        self.file = file
        self.line = line
    }

    public var detail: String? { sdpLine.map { "SDP line \($0)" } }
}

extension ErrorCode where Owner == WebRTCSDPError {
    /// Text that is not SDP: a line without `x=`, a first line other than `v=0`, a field that must be a number and
    /// is not, a known attribute whose value cannot be read.
    public static var malformed: Self { Self("malformed") }
    /// A hostile-input bound (a named constant of `WebRTCSDP.Limits`) was exceeded.
    public static var limitExceeded: Self { Self("limitExceeded") }
    /// Well-formed SDP that lacks what WebRTC requires of it: BUNDLE, rtcp-mux, ICE credentials, a DTLS fingerprint,
    /// a usable setup role, a video section in the right direction.
    public static var unacceptable: Self { Self("unacceptable") }
    /// The other side offers or accepts no codec this encoder's stream can be sent as (profile, packetization mode).
    public static var noCompatibleCodec: Self { Self("noCompatibleCodec") }
    /// Our own local values cannot be written into SDP (an ICE ufrag shorter than 4 characters, a password shorter
    /// than 22, characters outside ice-char, an empty fingerprint).
    public static var invalidLocalParameters: Self { Self("invalidLocalParameters") }
}

extension WebRTCSDPError {
    @inline(never)
    package static func malformed(_ reason: String, sdpLine: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .malformed, reason: reason, sdpLine: sdpLine, file: file, line: line)
    }

    @inline(never)
    package static func limitExceeded(_ reason: String, sdpLine: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .limitExceeded, reason: reason, sdpLine: sdpLine, file: file, line: line)
    }

    @inline(never)
    package static func unacceptable(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .unacceptable, reason: reason, file: file, line: line)
    }

    @inline(never)
    package static func noCompatibleCodec(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .noCompatibleCodec, reason: reason, file: file, line: line)
    }

    @inline(never)
    package static func invalidLocalParameters(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidLocalParameters, reason: reason, file: file, line: line)
    }
}
