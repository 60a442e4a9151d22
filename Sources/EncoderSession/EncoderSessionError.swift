import MediaCore

/// The one error type of the EncoderSession module.
///
/// Shaped like `BitstreamError` (swift-asn1 style): an extensible `code` to compare on, a human `reason`, the call
/// site, and — when the failure came out of libav — the AVERROR value and FFmpeg's own text for it.
public struct EncoderSessionError: CodedError {
    public let code: Code
    public let reason: String
    /// The AVERROR value when the failure came from a libav call.
    public let averror: Int32?
    /// FFmpeg's text for `averror` (av_strerror), when there is one.
    public let libavMessage: String?
    public let file: String
    public let line: UInt

    public init(
        code: Code, reason: String, averror: Int32? = nil, libavMessage: String? = nil,
        file: String = #fileID, line: UInt = #line
    ) {
        self.code = code
        self.reason = reason
        self.averror = averror
        self.libavMessage = libavMessage
        self.file = file
        self.line = line
    }

    public init(code: Code, reason: String, file: String, line: UInt) {
        self.init(code: code, reason: reason, averror: nil, file: file, line: line)
    }

    public var detail: String? { averror.map { "\(libavMessage ?? "libav error"), AVERROR \($0)" } }
}

extension ErrorCode where Owner == EncoderSessionError {
    /// A configuration value out of range (zero/odd size, bitrate ≤ 0, empty window, …).
    public static var invalidConfiguration: Self { Self("invalidConfiguration") }
    /// The configuration asks for a codec the chosen encoder does not produce (a backend of the wrong codec).
    public static var unsupportedCodec: Self { Self("unsupportedCodec") }
    /// The requested level cannot carry the size, frame rate or bitrate (H.264 Table A-1, H.265 Tables A.8/A.9).
    public static var levelTooLow: Self { Self("levelTooLow") }
    /// A pixel buffer whose format, size, plane count, stride or byte count does not match the session.
    public static var invalidPixelBuffer: Self { Self("invalidPixelBuffer") }
    /// A presentation time that is not strictly after the previous frame's, or not representable.
    public static var invalidTimestamp: Self { Self("invalidTimestamp") }
    /// The session was invalidated; nothing more can be done with it.
    public static var invalidated: Self { Self("invalidated") }
    /// The hardware encoder (VA-API) cannot be used: no device, no driver, no entry point for the codec or
    /// profile.
    public static var hardwareUnavailable: Self { Self("hardwareUnavailable") }
    /// libavcodec (or a library it needs) cannot be loaded: rtenc opens it on first use, so a missing or broken
    /// installation shows here, with the dynamic loader's reason.
    public static var libraryUnavailable: Self { Self("libraryUnavailable") }
    /// libavcodec has no encoder of that name (e.g. a build without libx264 or libx265).
    public static var encoderNotFound: Self { Self("encoderNotFound") }
    /// avcodec_open2 refused the settings.
    public static var encoderOpenFailed: Self { Self("encoderOpenFailed") }
    /// A libav call failed while encoding.
    public static var encodeFailed: Self { Self("encodeFailed") }
    /// An allocation in libav failed.
    public static var outOfMemory: Self { Self("outOfMemory") }
    /// The encoder produced bytes this session could not parse as its codec (H.264 or H.265).
    public static var malformedOutput: Self { Self("malformedOutput") }
}

extension EncoderSessionError {
    @inline(never)
    static func invalidated(file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidated, reason: "the session was invalidated", file: file, line: line)
    }
}
