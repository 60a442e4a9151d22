import Bitstream
import MediaCore

/// Frames from any file libavformat can open: the best video stream is decoded with libavcodec and converted with
/// libswscale to the requested size and layout.
///
/// Timestamps are the stream's own (best-effort) presentation times, shifted so the first frame is at zero, in the
/// stream's time base. With `loop`, the file starts over when it ends and timestamps keep counting from one frame
/// duration after the last frame, so a loop is seamless and timestamps always strictly increase.
public struct LibAVFileSource: FrameSource {
    public let path: String
    public let format: PixelFormat
    public let width: Int
    public let height: Int
    public let frameRate: Rational
    /// Size of the video stream as stored in the file.
    public let sourceWidth: Int
    public let sourceHeight: Int
    /// The libavcodec decoder in use ("h264", "vp9", …).
    public var decoderName: String { state.decoder.name }
    public let loop: Bool

    private let state: DecodeState

    /// - Parameters:
    ///   - width, height: output size; nil keeps the stream's size (rounded down to even numbers).
    ///   - threads: decoder threads, 0 for libavcodec's choice.
    public init(
        path: String, width: Int? = nil, height: Int? = nil, format: PixelFormat = .nv12, loop: Bool = false,
        threads: Int = 0
    ) throws(MediaIOError) {
        let state = try DecodeState(path: path, threads: threads)
        sourceWidth = state.info.width
        sourceHeight = state.info.height
        guard (width != nil && height != nil) || (sourceWidth >= 2 && sourceHeight >= 2) else {
            throw .make(.invalidFormat, "\(path): the video stream does not say its size; give an output size")
        }
        self.width = width ?? sourceWidth & ~1
        self.height = height ?? sourceHeight & ~1
        try validateGeometry(width: self.width, height: self.height)
        self.path = path
        self.format = format
        self.loop = loop
        self.frameRate = state.nominalFrameRate
        state.scaler = FrameScaler(width: self.width, height: self.height, format: format)
        self.state = state
    }

    /// Opens `path` and lets `outputSize` choose the output size from the stream's own (after the stream is known,
    /// before the first frame), converting to `matrix` at limited range (full range with `fullRange`: a mask's
    /// luma, white 255): what a compositor needs to fit a clip into its canvas in one libswscale pass.
    public init(
        path: String, format: PixelFormat, matrix: YCbCrMatrix,
        outputSize: (_ sourceWidth: Int, _ sourceHeight: Int) throws(MediaIOError) -> (width: Int, height: Int),
        threads: Int = 0, fullRange: Bool = false
    ) throws(MediaIOError) {
        try self.init(path: path, format: format, matrix: matrix, threads: threads, fullRange: fullRange,
                      outputSize: { (geometry: SourceGeometry) throws(MediaIOError) in
                          try outputSize(geometry.width, geometry.height)
                      })
    }

    /// What the stream says about its pictures before the first is decoded: the stored size and the display matrix.
    public struct SourceGeometry: Sendable, Hashable {
        public let width: Int
        public let height: Int
        /// The stream's display matrix (nil without one): the decoded pictures are not turned; the caller shows them
        /// upright with `displayMatrix.quarterTurn`.
        public let displayMatrix: DisplayMatrix?
    }

    /// As `init(path:format:matrix:outputSize:threads:fullRange:)`, with the display matrix handed to `outputSize` too, so a
    /// compositor that turns the picture upright can size it turned.
    public init(
        path: String, format: PixelFormat, matrix: YCbCrMatrix, threads: Int = 0, fullRange: Bool = false,
        outputSize: (SourceGeometry) throws(MediaIOError) -> (width: Int, height: Int)
    ) throws(MediaIOError) {
        let state = try DecodeState(path: path, threads: threads)
        sourceWidth = state.info.width
        sourceHeight = state.info.height
        guard sourceWidth >= 1, sourceHeight >= 1 else {
            throw .make(.invalidFormat, "\(path): the video stream does not say its size")
        }
        (width, height) = try outputSize(
            SourceGeometry(width: sourceWidth, height: sourceHeight, displayMatrix: state.info.displayMatrix))
        try validateGeometry(width: width, height: height)
        self.path = path
        self.format = format
        self.loop = false
        self.frameRate = state.nominalFrameRate
        state.scaler = FrameScaler(width: width, height: height, format: format, matrix: matrix, fullRange: fullRange)
        self.state = state
    }

    public mutating func nextFrame(into buffer: inout PixelBuffer) throws(MediaIOError) -> MediaTime? {
        var alpha: PixelBuffer.Plane?
        return try state.nextFrame(into: &buffer, alpha: &alpha, keepAlpha: false, loop: loop)
    }

    /// The next frame with its alpha: for an I420 source whose decoded frames carry alpha (PNG with alpha, qtrle,
    /// PNG-in-MOV, yuva420p…), `alpha` is set to an output-sized plane (0 transparent … 255 opaque, straight, not
    /// premultiplied); for an opaque frame it becomes nil. The plane's storage is reused from frame to frame.
    public mutating func nextFrame(into buffer: inout PixelBuffer,
                                   alpha: inout PixelBuffer.Plane?) throws(MediaIOError) -> MediaTime? {
        try state.nextFrame(into: &buffer, alpha: &alpha, keepAlpha: true, loop: loop)
    }

    /// Moves the demuxer to the keyframe at or before `time` (on this source's time line: 0 is the first frame) and
    /// empties the decoder, so the next frames decoded are that keyframe and what follows it. Not an exact seek:
    /// the caller decodes forward from there (a compositor reading a clip backwards does so one chunk at a time).
    /// A keyframe whose presentation time lies after `time` can come back when the container indexes by decode
    /// time; the caller seeks earlier then. Needs one frame read before (it fixes where 0 is); not while looping.
    public mutating func seekToKeyframe(atOrBefore time: MediaTime) throws(MediaIOError) {
        guard !loop else { throw .make(.unsupported, "\(path): a looping source cannot seek") }
        try state.seekToKeyframe(atOrBefore: time)
    }
}

/// The libav objects behind one `LibAVFileSource` and the timestamp bookkeeping across loops.
private final class DecodeState {
    let path: String
    let threads: Int
    var input: FormatInput
    var info: StreamInfo
    var decoder: VideoDecoder
    var scaler: FrameScaler?
    let packet: OwnedPacket
    let frame: OwnedFrame

    /// Raw timestamp of the first frame of the current pass over the file.
    private var passStart: Int64?
    /// What the current pass adds to (raw − passStart), in time-base ticks.
    private var passOffset: Int64 = 0
    /// The last timestamp handed out, in ticks.
    private var lastOutput: Int64?
    private var lastRaw: Int64?
    private var lastDuration: Int64 = 1
    private var framesThisPass = 0

    init(path: String, threads: Int) throws(MediaIOError) {
        self.path = path
        self.threads = threads
        input = try FormatInput(path: path)
        let stream = try input.bestVideoStream()
        info = try StreamInfo(stream, path: path)
        decoder = try VideoDecoder(stream: stream, threads: threads)
        packet = try OwnedPacket()
        frame = try OwnedFrame()
    }

    /// The stream's average frame rate, else its base rate, else 25 (FFmpeg's fallback).
    var nominalFrameRate: Rational { info.frameRate ?? Rational(25, 1) }

    func nextFrame(into buffer: inout PixelBuffer, alpha: inout PixelBuffer.Plane?, keepAlpha: Bool,
                   loop: Bool) throws(MediaIOError) -> MediaTime? {
        while true {
            switch try decoder.receive(into: frame) {
            case .frame:
                let pts = timestamp(of: frame)
                try scaler?.scale(frame, into: &buffer, alpha: &alpha, keepAlpha: keepAlpha)
                return info.time(pts)
            case .needsInput:
                try feedDecoder()
            case .drained:
                guard loop, framesThisPass > 0 else { return nil }
                try restart()
            }
        }
    }

    /// Reads packets until one of our stream reaches the decoder, or starts draining at the end of the file.
    private func feedDecoder() throws(MediaIOError) {
        while try input.readPacket(into: packet) {
            if packet.streamIndex == info.index {
                try decoder.send(packet)
                return
            }
        }
        try decoder.send(nil) // End of file: drain the frames the decoder still holds.
    }

    /// Maps a decoded frame's raw time to the continuous output time line.
    private func timestamp(of frame: OwnedFrame) -> Int64 {
        let raw = frame.presentationTimestamp ?? lastRaw.map { $0 + lastDuration } ?? 0
        let start = passStart ?? raw
        passStart = start
        var output = raw - start + passOffset
        // Files with broken or repeated timestamps must not make time run backwards for the consumer.
        if let lastOutput, output <= lastOutput { output = lastOutput + 1 }
        lastRaw = raw
        // One frame duration in ticks: the packet's if known, else from the nominal rate.
        lastDuration = frame.duration ?? info.ticks(perFrameAt: nominalFrameRate)
        lastOutput = output
        framesThisPass += 1
        return output
    }

    func seekToKeyframe(atOrBefore time: MediaTime) throws(MediaIOError) {
        guard let origin = passStart else {
            throw .make(.invalidState, "\(path): read a frame before seeking (the first frame's time is the origin)")
        }
        guard time.isValid else { throw .make(.invalidArgument, "\(path): cannot seek to \(time)") }
        // time in stream ticks, rounded down: time.value / time.timescale s × den / num ticks per second.
        let ticks = Int128(time.value) * Int128(info.timeBase.denominator)
            / (Int128(time.timescale) * Int128(info.timeBase.numerator))
        let target = Int64(clamping: Int128(origin) + ticks)
        try input.seek(stream: info.index, to: target)
        decoder.flush()
        // Timestamps restart from the seek point; the origin stays.
        lastOutput = nil
        lastRaw = nil
    }

    /// Starts the file over: a fresh demuxer and decoder (seeking is not reliable for every container), with the
    /// next pass starting one frame duration after the last frame handed out.
    private func restart() throws(MediaIOError) {
        input = try FormatInput(path: path)
        let stream = try input.bestVideoStream()
        info = try StreamInfo(stream, path: path)
        decoder = try VideoDecoder(stream: stream, threads: threads)
        passOffset = (lastOutput ?? 0) + lastDuration
        passStart = nil
        lastRaw = nil
        framesThisPass = 0
    }
}
