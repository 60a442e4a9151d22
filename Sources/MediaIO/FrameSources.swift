#if canImport(Glibc)
import Bitstream
import Glibc
#endif
import MediaCore

/// How a caller wants its frames, whatever the input.
public struct FrameSourceOptions: Sendable {
    /// Output size; nil keeps the input's own size (the test pattern's default is 1280×720).
    public var width: Int?
    public var height: Int?
    /// Frame rate of the test pattern; files keep their own timing.
    public var frameRate: Rational?
    public var format: PixelFormat
    /// Start a file over at its end, timestamps continuing (not possible for standard input).
    public var loop: Bool
    /// The wall clock drawn by the test pattern.
    public var clock: TestPatternSource.WallClock

    public init(
        width: Int? = nil, height: Int? = nil, frameRate: Rational? = nil, format: PixelFormat = .nv12,
        loop: Bool = false, clock: @escaping TestPatternSource.WallClock = systemWallClock
    ) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.format = format
        self.loop = loop
        self.clock = clock
    }
}

/// Picks the source for an input name the way `rtenc stream [INPUT]` accepts it.
public enum FrameSources {
    /// The test pattern's size when none is asked for.
    public static let defaultTestPatternSize = (width: 1280, height: 720)
    public static let defaultTestPatternRate = Rational(30, 1)

    /// - `testsrc` (or an empty name): the moving test pattern, with the options of `TestPatternName`
    ///   (`testsrc:noise`, `testsrc:barcode`, `testsrc:noise:barcode`).
    /// - `-`: Y4M on standard input.
    /// - a Y4M file: read directly (through libavformat when looping).
    /// - anything else: a file libavformat opens, decoded and scaled.
    public static func open(
        _ input: String, options: FrameSourceOptions = .init()
    ) throws(MediaIOError) -> any FrameSource<MediaIOError> {
        if let pattern = try TestPatternName(parsing: input) {
            return try TestPatternSource(
                width: options.width ?? defaultTestPatternSize.width, height: options.height ?? defaultTestPatternSize.height,
                frameRate: options.frameRate ?? defaultTestPatternRate, format: options.format,
                content: pattern.content, barcode: pattern.barcode, clock: options.clock)
        }
        switch input {
        case "-":
            guard !options.loop else { throw .make(.invalidArgument, "standard input cannot be looped") }
            return try resized(Y4MReader(path: "-", format: options.format), options: options)
        default:
            if !options.loop, try startsWithY4MMagic(input) {
                return try resized(Y4MReader(path: input, format: options.format), options: options)
            }
            return try LibAVFileSource(path: input, width: options.width, height: options.height, format: options.format,
                                       loop: options.loop)
        }
    }

    /// The source itself when it already has the asked size, else the source behind a libswscale stage.
    private static func resized(
        _ source: Y4MReader, options: FrameSourceOptions
    ) throws(MediaIOError) -> any FrameSource<MediaIOError> {
        let width = options.width ?? source.width, height = options.height ?? source.height
        if width == source.width, height == source.height { return source }
        try validateGeometry(width: width, height: height)
        return try ScaledFrameSource(base: source, width: width, height: height)
    }

    private static func startsWithY4MMagic(_ path: String) throws(MediaIOError) -> Bool {
        // A missing or unreadable file is not a Y4M file; libavformat will report it in its own words.
        guard let input = try? FileInput(path: path) else { return false }
        return try input.read(count: Y4MHeader.magic.count) == Y4MHeader.magic
    }
}

/// Another source's frames, resized with libswscale.
public struct ScaledFrameSource<Base: FrameSource<MediaIOError>>: FrameSource {
    public private(set) var base: Base
    public let width: Int
    public let height: Int
    public var format: PixelFormat { base.format }
    public var frameRate: Rational { base.frameRate }

    private let scaler: PixelBufferScaler
    private var input: PixelBuffer

    public init(base: Base, width: Int, height: Int) throws(MediaIOError) {
        try validateGeometry(width: width, height: height)
        self.base = base
        self.width = width
        self.height = height
        scaler = try PixelBufferScaler(from: (base.width, base.height, base.format), to: (width, height, base.format))
        input = base.makeBuffer()
    }

    public mutating func nextFrame(into buffer: inout PixelBuffer) throws(MediaIOError) -> MediaTime? {
        guard let pts = try base.nextFrame(into: &input) else { return nil }
        try scaler.scale(input, into: &buffer)
        return pts
    }
}
