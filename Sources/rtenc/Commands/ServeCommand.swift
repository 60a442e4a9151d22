#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Bitstream
import EncoderSession
import FoundationEssentials
import MediaIO
import RTPOut
import WebRTC
import WebRTCHTTP
import WebRTCTransport

/// `rtenc serve [INPUT] --whep HOST:PORT`: one encoder, served to WebRTC players over WHEP (ICE-lite, DTLS-SRTP).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Encode frames in real time and serve them to browsers and other WebRTC players over WHEP.",
        discussion: """
            Open http://HOST:PORT/ in a browser (the built-in player page, with its getStats), or POST an SDP offer \
            to http://HOST:PORT/whep from any WHEP player. rtenc answers as an ICE-lite, DTLS-client sender; media \
            for every viewer leaves one UDP socket (--webrtc-udp, by default the WHEP host with a free port). Each \
            new viewer gets an IDR with SPS/PPS; PLI/FIR bring IDRs; REMB lowers the encoder's target (the lowest \
            congested viewer's, never below 150 kb/s). Stops at Ctrl-C or after --duration seconds.
            """
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var encoder: EncoderOptions

    @Option(help: ArgumentHelp("Where the WHEP HTTP server listens.", valueName: "host:port"),
            transform: { argument in try Endpoint.parse(argument) })
    var whep: Endpoint

    @Option(help: ArgumentHelp("The UDP address media is served from (default: the --whep host, a free port).", valueName: "host:port"),
            transform: { argument in try Endpoint.parse(argument) })
    var webrtcUdp: Endpoint?

    @Option(help: ArgumentHelp("A host candidate the answers offer players (repeatable; default: the UDP address). Loopback is kept.",
                               valueName: "ip[:port]"),
            transform: { argument in try CandidateArgument.parse(argument) })
    var webrtcCandidate: [CandidateArgument] = []

    @Option(help: "Require 'Authorization: Bearer TOKEN' on WHEP requests.")
    var whepToken: String?

    @Option(help: "Refuse more viewers than this at once (503 with Retry-After; default 16).",
            transform: OptionNumber.integer(1...10_000, unit: "viewers"))
    var maxViewers = 16

    @Option(help: "Refuse more viewers still connecting (ICE or DTLS not done) than this at once (503 with Retry-After; default 8).",
            transform: OptionNumber.integer(1...10_000, unit: "viewers"))
    var maxPendingViewers = 8

    @Option(parsing: .unconditional, help: "Stop after this many seconds of video.",
            transform: OptionNumber.decimal(expected: "more than 0 seconds") { $0 > 0 })
    var duration: Double?

    @Option(help: "Write one JSON object per second (time, viewers, target_kbps, and per viewer: state, kbps, remb_kbps, nacks, plis, keyframes).")
    var statsJson: String?

    @Flag(help: "Print nothing but errors and the line that says where to open the player.")
    var quiet = false

    func validate() throws {
        if let token = whepToken, token.isEmpty || token.contains(where: { $0.isWhitespace }) {
            throw ValidationError("--whep-token must be non-empty and without spaces")
        }
    }

    func run() throws {
        let logger = Diagnostics.logger(quiet: quiet)
        let stop = StopSignal()
        var source = try input.open(command: "serve", live: true)
        let frameRate = source.frameRate.doubleValue > 0 ? source.frameRate.doubleValue : 30
        let collector = OutputCollector()
        let session: CompressionSession
        do {
            session = try CompressionSession(
                configuration: encoder.configuration(width: source.width, height: source.height, frameRate: frameRate, pixelFormat: source.format),
                outputHandler: collector.handler)
        } catch {
            throw CLIError("serve: cannot open the encoder: \(error)")
        }
        defer { session.invalidate() }

        // The first frame is encoded before anything is served: its SPS says what the answers must negotiate.
        var buffer = source.makeBuffer()
        guard let firstTime = try nextFrame(from: &source, into: &buffer) else { throw CLIError("serve: input \(input.input) has no frames") }
        try encode(session, buffer, at: firstTime, index: 0, keyframe: true)
        let first = collector.drain()
        guard let parameterSets = first.lazy.compactMap({ $0.frame?.parameterSets }).first,
              let sps = parameterSets.sequenceParameterSets.first, let pps = parameterSets.pictureParameterSets.first
        else {
            throw CLIError("serve: the encoder gave no SPS/PPS for the first frame")
        }
        let encoding = try Self.encoding(sps: sps, codec: encoder.codec.codec)

        let udp = webrtcUdp ?? Endpoint(host: whep.host, port: 0)
        let server: WebRTCServer
        do {
            let bind = try udp.port == 0 ? SocketAddress(host: HostResolver.resolve(Endpoint(host: udp.host, port: 1), command: "serve").host, port: 0)
                : HostResolver.resolve(udp, command: "serve")
            let candidates = try webrtcCandidate.map { try SocketAddress(host: $0.host, port: $0.port) }
            var configuration = WebRTCServerConfiguration(
                bind: bind, candidates: candidates, encoding: encoding, sequenceParameterSet: sps, pictureParameterSet: pps,
                bitrateCeiling: UInt64(encoder.bitrate.bitsPerSecond), maxViewers: maxViewers)
            configuration.maxPendingViewers = maxPendingViewers
            server = try WebRTCServer(configuration: configuration)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("serve: \(error)")
        }
        defer { server.stop() }
        let http = WHEPHTTPServer(
            configuration: .init(host: whep.host, port: Int(whep.port), bearerToken: whepToken),
            endpoint: WebRTCServerEndpoint(server))
        let port: Int
        do {
            port = try http.start()
        } catch {
            throw CLIError("serve: \(error)")
        }
        defer { http.stop() }
        let base = "http://\(Endpoint(host: whep.host, port: UInt16(port)))"
        Console.standardOutput.write(Data(("rtenc: serving \(input.input) \(source.width)x\(source.height) at \(Int(frameRate.rounded())) fps, "
            + "\(encoder.bitrate.kilobitsPerSecond) kb/s: open \(base)/ (WHEP endpoint \(base)/whep; media on UDP "
            + "\(server.configuration.candidates.map(\.description).joined(separator: ", ")))\n").utf8))
        logger.info("encoder: \(session.encoderInUse)")

        let statsFile = try statsJson.map { try LinesFileWriter(path: $0) }
        let clockStart = MonotonicTime.now()
        var nextReport = 1.0
        var pacer = RealTimeFramePacer(maxLateness: .milliseconds(Int64(max(0.5, 2 / frameRate) * 1000)))
        pacer.restart(presentationTime: firstTime)
        var target = encoder.bitrate.bitsPerSecond
        var keyframes = 0
        func forward(_ outputs: [EncoderOutput]) throws {
            for output in outputs {
                if case .failure(let error) = output.status { throw CLIError("serve: encoder failed: \(error)") }
                guard let frame = output.frame else { continue }
                if frame.isKeyFrame { keyframes += 1 }
                server.send(frame.accessUnit)
            }
            for line in server.takeLog() { logger.info("\(line)") }
        }
        try forward(first)
        var previousTime = firstTime
        var index = 1
        while !stop.isStopped {
            if let frames = input.frames, index >= frames { break }
            // Wait for the next frame's turn before taking it, as a camera delivers a picture when it is captured:
            // the test pattern's barcode then shows the time the frame was due, not a frame interval earlier.
            _ = pacer.waitForTurn(of: MediaTime(seconds: previousTime.seconds + 1 / frameRate), shouldStop: { stop.isStopped })
            guard let time = try nextFrame(from: &source, into: &buffer) else { break }
            previousTime = time
            if let duration, time.seconds - firstTime.seconds >= duration { break }
            guard pacer.waitForTurn(of: time, shouldStop: { stop.isStopped }) else {
                if stop.isStopped { break }
                index += 1
                continue
            }
            let wanted = Int(server.encoderTarget)
            if wanted != target {
                do {
                    try session.setAverageBitRate(wanted)
                } catch {
                    throw CLIError("serve: setting the encoder's bit rate to \(wanted) b/s: \(error)")
                }
                logger.info("encoder target \(target / 1000) → \(wanted / 1000) kb/s (REMB)")
                target = wanted
            }
            let forced = server.takeKeyframeRequest() || (encoder.forceIdr?.frames.contains(index) ?? false)
            try encode(session, buffer, at: time, index: index, keyframe: forced)
            try forward(collector.drain())
            let elapsed = MonotonicTime.now() - clockStart
            if elapsed >= nextReport {
                nextReport = elapsed.rounded(.down) + 1
                let line = ServeStatisticsLine(time: elapsed, target: target, keyframes: keyframes, viewers: server.statistics())
                try statsFile?.write(line)
                if !quiet { logger.debug("\(line.viewers.count) viewers, target \(target / 1000) kb/s") }
            }
            index += 1
        }
        do {
            try session.completeFrames()
        } catch {
            throw CLIError("serve: flushing the encoder: \(error)")
        }
        try forward(collector.drain())
        try statsFile?.close()
        logger.info("served \(index) frames (\(keyframes) keyframes); \(server.viewerCount) viewers at the end")
    }

    private func nextFrame(from source: inout any FrameSource, into buffer: inout PixelBuffer) throws -> MediaTime? {
        do {
            return try source.nextFrame(into: &buffer)
        } catch {
            throw CLIError("serve: input \(input.input): \(error)")
        }
    }

    private func encode(_ session: CompressionSession, _ buffer: PixelBuffer, at time: MediaTime, index: Int, keyframe: Bool) throws {
        do {
            try session.encode(buffer, presentationTime: time, options: CompressionSession.FrameOptions(forceKeyFrame: keyframe), context: index)
        } catch {
            throw CLIError("serve: frame \(index): \(error)")
        }
    }

    /// What the answers negotiate: the encoder's stream as its SPS says (profile_idc, constraint flags, level_idc).
    static func encoding(sps: [UInt8], codec: VideoCodec) throws -> WebRTCSDP.VideoEncoding {
        guard codec == .h264 else { throw CLIError("serve: WebRTC serving is H.264 only for now (--codec h264)") }
        guard sps.count >= 4, let profile = H264Profile(profileIdc: sps[1], profileIop: sps[2]),
              let level = H264Level(rawValue: Int(sps[3]))
        else {
            throw CLIError("serve: the encoder's SPS names no H.264 profile and level this server knows")
        }
        return .h264(profile: profile, level: level)
    }
}

/// `--webrtc-candidate IP[:PORT]`: port 0 (absent) means the UDP socket's.
struct CandidateArgument: Sendable, Hashable {
    var host: String
    var port: UInt16

    static func parse(_ argument: String) throws(OptionValueError) -> CandidateArgument {
        if let endpoint = try? Endpoint.parse(argument) { return CandidateArgument(host: endpoint.host, port: endpoint.port) }
        return CandidateArgument(host: try NumericAddress.parse(argument), port: 0)
    }
}


/// One `--stats-json` line of `serve`.
struct ServeStatisticsLine: Encodable {
    struct Viewer: Encodable {
        var id: String
        var state: String
        var kbps: Double
        var rembKbps: Double?
        var nacks: Int
        var plis: Int
        var keyframes: Int
        var packets: Int
        var firstKeyframeMs: Double?

        enum CodingKeys: String, CodingKey {
            case id, state, kbps, nacks, plis, keyframes, packets
            case rembKbps = "remb_kbps"
            case firstKeyframeMs = "first_keyframe_ms"
        }
    }

    var time: Double
    var targetKbps: Double
    var keyframes: Int
    var viewers: [Viewer]

    enum CodingKeys: String, CodingKey {
        case time, keyframes, viewers
        case targetKbps = "target_kbps"
    }

    init(time: Double, target: Int, keyframes: Int, viewers: [WebRTCViewerStatistics]) {
        self.time = (time * 1000).rounded() / 1000
        targetKbps = Double(target) / 1000
        self.keyframes = keyframes
        self.viewers = viewers.map { v in
            Viewer(id: v.id, state: v.state, kbps: (v.bitrate / 100).rounded() / 10, rembKbps: v.peerLimit.map { Double($0) / 1000 },
                   nacks: v.nackedPackets, plis: v.keyframeRequests, keyframes: v.keyframesSent, packets: v.packetsSent,
                   firstKeyframeMs: v.firstKeyframeAfter.map { Double($0.nanoseconds) / 1e6 })
        }
    }
}
