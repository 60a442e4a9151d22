/// The one error type of the EncoderSession module.
///
/// Shaped like `BitstreamError` (swift-asn1 style): an extensible `code` to compare on, a human `reason`, the call
/// site, and — when the failure came out of libav — the AVERROR value and FFmpeg's own text for it.
public struct EncoderSessionError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A configuration value out of range (zero/odd size, bitrate ≤ 0, empty window, …).
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The configuration asks for a codec no encoder here produces: H.264 only, until HEVC (libx265) arrives
        /// with issue 15.
        public static let unsupportedCodec = Code("unsupportedCodec")
        /// The requested H.264 level cannot carry the size, frame rate or bitrate (H.264 Table A-1).
        public static let levelTooLow = Code("levelTooLow")
        /// A pixel buffer whose format, size, plane count, stride or byte count does not match the session.
        public static let invalidPixelBuffer = Code("invalidPixelBuffer")
        /// A presentation time that is not strictly after the previous frame's, or not representable.
        public static let invalidTimestamp = Code("invalidTimestamp")
        /// The session was invalidated; nothing more can be done with it.
        public static let invalidated = Code("invalidated")
        /// The hardware encoder (VA-API) cannot be used: no device, no driver, no H.264 entry point.
        public static let hardwareUnavailable = Code("hardwareUnavailable")
        /// libavcodec (or a library it needs) cannot be loaded: rtenc opens it on first use, so a missing or broken
        /// installation shows here, with the dynamic loader's reason.
        public static let libraryUnavailable = Code("libraryUnavailable")
        /// libavcodec has no encoder of that name (e.g. a build without libx264).
        public static let encoderNotFound = Code("encoderNotFound")
        /// avcodec_open2 refused the settings.
        public static let encoderOpenFailed = Code("encoderOpenFailed")
        /// A libav call failed while encoding.
        public static let encodeFailed = Code("encodeFailed")
        /// An allocation in libav failed.
        public static let outOfMemory = Code("outOfMemory")
        /// The encoder produced bytes this session could not parse as H.264.
        public static let malformedOutput = Code("malformedOutput")
    }

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

    public var description: String {
        var text = "\(code): \(reason)"
        if let averror {
            text += " (\(libavMessage ?? "libav error"), AVERROR \(averror))"
        }
        return text
    }
}

extension EncoderSessionError {
    @inline(never)
    static func invalidConfiguration(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidConfiguration, reason: reason, file: file, line: line)
    }

    @inline(never)
    static func invalidPixelBuffer(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidPixelBuffer, reason: reason, file: file, line: line)
    }

    @inline(never)
    static func invalidTimestamp(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidTimestamp, reason: reason, file: file, line: line)
    }

    @inline(never)
    static func invalidated(file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidated, reason: "the session was invalidated", file: file, line: line)
    }

    @inline(never)
    static func malformedOutput(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .malformedOutput, reason: reason, file: file, line: line)
    }
}
