#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import BitrateAdaptation  // String(cFormat:)
import Bitstream
import EncoderSession
import FoundationEssentials
import MediaIO

/// `rtenc encode [INPUT] -o OUT`: the `stream` encoder, as fast as possible, to a file.
struct EncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Encode frames to an Annex-B .h264/.h265 or an .mp4 file as fast as possible (not paced).",
        discussion: """
            Uses the same real-time encoder configuration as `stream`. --stats-json writes one JSON object per input
            frame: index, pts (s), bytes, type (IDR/I/P/B), qp, encode_us, overhead_us, dropped. With --codec hevc \
            the output is H.265 (libx265): .h265 or .hevc (Annex-B), .mp4 (hvc1 with its hvcC record), or '-'.
            """
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var encoder: EncoderOptions

    @Option(name: .shortAndLong,
            help: "Output file: .h264 (Annex-B), .h265/.hevc (Annex-B, --codec hevc), .mp4 (either codec), or '-' for Annex-B on stdout.")
    var output: String

    @Option(help: "Write per-frame statistics as JSON lines to this file.")
    var statsJson: String?

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        if (try? TestPatternName(parsing: input.input)) != nil, input.frames == nil {
            throw ValidationError("the test pattern never ends: give --frames N")
        }
    }

    func run() throws {
        var source = try input.open(command: "encode")
        try FileEncoder(command: "encode", inputName: input.input, encoder: encoder, output: output,
                        statsJson: statsJson, quiet: quiet, frameLimit: input.frames).run(&source)
    }
}

/// The loop `encode` and `render` share: frames from a source through the real-time encoder configuration to a
/// .h264 or .mp4 file, as fast as possible and never dropping (the session waits for the encoder).
struct FileEncoder {
    let command: String
    let inputName: String
    let encoder: EncoderOptions
    let output: String
    let statsJson: String?
    let quiet: Bool
    let frameLimit: Int?

    func run(_ source: inout any FrameSource) throws {
        let stop = StopSignal()
        let frameRate = source.frameRate.doubleValue > 0 ? source.frameRate.doubleValue : 30
        let configuration = encoder.configuration(
            width: source.width, height: source.height, frameRate: frameRate, pixelFormat: source.format)
        let collector = OutputCollector()
        let session: CompressionSession
        do {
            session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
        } catch {
            throw CLIError("\(command): cannot open the encoder: \(error)")
        }
        defer { session.invalidate() }
        let sink = try EncodedFileSink.open(
            path: output, width: source.width, height: source.height, codec: configuration.codec, command: command)
        let stats = try statsJson.map { try LinesFileWriter(path: $0) }
        var types = PictureTypeReader(codec: configuration.codec)
        var summary = EncodeSummary()
        let started = Date()

        func handle(_ outputs: [EncoderOutput]) throws {
            for output in outputs {
                let index = output.context as? Int ?? -1
                if case .failure(let error) = output.status {
                    throw CLIError("\(command): frame \(index): \(error)")
                }
                var type = "?"
                if let frame = output.frame {
                    try sink.write(frame)
                    type = types.pictureType(frame.accessUnit)
                }
                summary.add(output, type: type)
                try stats?.write(FrameStatsLine(index: index, output: output, type: type))
            }
        }

        var buffer = source.makeBuffer()
        var index = 0
        while frameLimit.map({ index < $0 }) ?? true {
            // Interrupted: the output is incomplete, so it is not kept (the writers delete their temporary file).
            if stop.isStopped { throw CLIError("\(command): interrupted after \(index) frames; \(output) not written") }
            let pts: MediaTime?
            do {
                pts = try source.nextFrame(into: &buffer)
            } catch {
                throw CLIError("\(command): input \(inputName): \(error)")
            }
            guard let pts else { break }
            let options = CompressionSession.FrameOptions(forceKeyFrame: encoder.forceIdr?.frames.contains(index) ?? false)
            do {
                try session.encode(buffer, presentationTime: pts, options: options, context: index)
            } catch {
                throw CLIError("\(command): frame \(index): \(error)")
            }
            try handle(collector.drain())
            index += 1
        }
        do {
            try session.completeFrames()
        } catch {
            throw CLIError("\(command): flushing the encoder: \(error)")
        }
        try handle(collector.drain())
        guard index > 0 else { throw CLIError("\(command): input \(inputName) has no frames") }
        try sink.close()
        try stats?.close()
        if !quiet {
            let elapsed = Date().timeIntervalSince(started)
            Console.standardError.write(Data(summary.line(
                elapsed: elapsed, frameRate: frameRate, encoder: session.encoderInUse.description).utf8))
        }
    }
}

/// One `--stats-json` line of `encode`.
struct FrameStatsLine: Encodable {
    var index: Int
    var pts: Double
    var bytes: Int
    var type: String
    var qp: Int?
    var encodeMicroseconds: Int
    /// Of `encodeMicroseconds`, the session's own time outside libavcodec's send/receive (bench/ reads it).
    var overheadMicroseconds: Int
    var dropped: Bool
    var dropReason: String?
    var targetBitRate: Int
    /// Set on an IDR larger than a whole data-rate window, sent alone because no IDR could meet the limit.
    var exceededLimit: Bool?

    init(index: Int, output: EncoderOutput, type: String) {
        self.index = index
        pts = output.presentationTime.seconds
        bytes = output.frame?.bytes.count ?? 0
        dropped = output.infoFlags.contains(.frameDropped)
        self.type = dropped ? "dropped" : type
        qp = output.stats.qp
        encodeMicroseconds = Int(output.stats.encodeMicroseconds.rounded())
        overheadMicroseconds = Int(output.stats.overheadMicroseconds.rounded())
        dropReason = output.stats.dropReason.map { "\($0)" }
        targetBitRate = output.stats.targetBitRate
        exceededLimit = output.stats.exceededDataRateLimit ? true : nil
    }

    enum CodingKeys: String, CodingKey {
        case index, pts, bytes, type, qp, dropped
        case encodeMicroseconds = "encode_us"
        case overheadMicroseconds = "overhead_us"
        case dropReason = "drop_reason"
        case targetBitRate = "target_bps"
        case exceededLimit = "exceeded_limit"
    }
}

/// Totals for the line `encode` prints at the end.
struct EncodeSummary {
    var frames = 0
    var bytes = 0
    var keyframes = 0
    var dropped = 0

    mutating func add(_ output: EncoderOutput, type: String) {
        frames += 1
        bytes += output.frame?.bytes.count ?? 0
        if output.frame?.isKeyFrame == true { keyframes += 1 }
        if output.infoFlags.contains(.frameDropped) { dropped += 1 }
    }

    func line(elapsed: Double, frameRate: Double, encoder: String) -> String {
        let duration = Double(frames) / frameRate
        let kbps = duration > 0 ? Double(bytes) * 8 / duration / 1000 : 0
        return String(cFormat: "encoded %ld frames (%ld keyframes, %ld dropped), %.0f kb/s, %.1f fps, ",
                      frames, keyframes, dropped, kbps, Double(frames) / max(elapsed, 1e-6)) + "\(encoder)\n"
    }
}
