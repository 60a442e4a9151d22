#if canImport(Glibc)
import Glibc
#endif
import MediaCore

/// The one error type of the MediaIO module.
///
/// Shaped like `BitstreamError` (and swift-asn1's `ASN1Error`): an extensible `code` to compare on in tests, a human
/// `reason`, the call site that raised it, and — when the failure came from libav* or libva — the library's own
/// status code and its text (`av_strerror` / `vaErrorStr`), so the CLI can print one line that says what and why.
public struct MediaIOError: CodedError {
    public let code: Code
    public let reason: String
    /// The negative AVERROR or VAStatus / errno value behind this error, when it came from a C library.
    public let status: Int32?
    /// The library's text for `status` (`av_strerror`, `vaErrorStr`, `strerror`).
    public let libraryReason: String?
    /// Index of the frame being read or written when the error happened, when there was one.
    public let frameIndex: Int?
    public let file: String
    public let line: UInt

    public init(
        code: Code, reason: String, status: Int32? = nil, libraryReason: String? = nil, frameIndex: Int? = nil,
        file: String = #fileID, line: UInt = #line
    ) {
        self.code = code
        self.reason = reason
        self.status = status
        self.libraryReason = libraryReason
        self.frameIndex = frameIndex
        self.file = file
        self.line = line
    }

    public init(code: Code, reason: String, file: String, line: UInt) {
        self.init(code: code, reason: reason, status: nil, file: file, line: line)
    }

    public var description: String {
        if let libraryReason {
            return "\(reason): \(libraryReason)"
        }
        return reason
    }
}

extension ErrorCode where Owner == MediaIOError {
    /// A file could not be opened, read, written or renamed (the reason carries `strerror`).
    public static var io: Self { Self("io") }
    /// The input ended in the middle of a structure (a header line, a frame).
    public static var truncated: Self { Self("truncated") }
    /// The input is empty where a header was expected.
    public static var emptyInput: Self { Self("emptyInput") }
    /// The input is not in the expected format (wrong magic, malformed tag).
    public static var invalidFormat: Self { Self("invalidFormat") }
    /// A legal feature this module does not handle (interlacing, 4:2:2, …); the reason says what to do instead.
    public static var unsupported: Self { Self("unsupported") }
    /// A hostile-input bound (named constant) was exceeded.
    public static var limitExceeded: Self { Self("limitExceeded") }
    /// A caller passed a value that cannot work (zero size, odd geometry, zero frame rate).
    public static var invalidArgument: Self { Self("invalidArgument") }
    /// The container holds no stream this module can use.
    public static var noVideoStream: Self { Self("noVideoStream") }
    /// libavformat could not open or read the input.
    public static var demuxFailed: Self { Self("demuxFailed") }
    /// libavcodec failed to decode (corrupt data, missing decoder).
    public static var decodeFailed: Self { Self("decodeFailed") }
    /// libswscale could not convert.
    public static var conversionFailed: Self { Self("conversionFailed") }
    /// libavformat could not write the output.
    public static var muxFailed: Self { Self("muxFailed") }
    /// A call was made in the wrong state (write after close, samples before parameter sets).
    public static var invalidState: Self { Self("invalidState") }
    /// A VA-API device could not be opened or initialised.
    public static var deviceUnavailable: Self { Self("deviceUnavailable") }
    /// A library rtenc opens on first use (libavformat, libavcodec, libswscale, libva) cannot be loaded; the reason
    /// is the dynamic loader's.
    public static var libraryUnavailable: Self { Self("libraryUnavailable") }
}

extension MediaIOError {
    /// The same error, tagged with the frame it happened in.
    func at(frame index: Int) -> Self {
        .init(code: code, reason: reason, status: status, libraryReason: libraryReason, frameIndex: index,
              file: file, line: line)
    }

    /// An I/O failure with the C library's `errno` text.
    @inline(never)
    static func io(_ reason: String, errno: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .io, reason: reason, status: errno, libraryReason: String(cString: strerror(errno)),
              file: file, line: line)
    }
}
