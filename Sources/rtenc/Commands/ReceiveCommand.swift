#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import BitrateAdaptation  // String(cFormat:)
import Bitstream
import FoundationEssentials
import MediaIO
import RTPOut
import Synchronization

/// `rtenc receive`: our depacketizer as a receiver (RTCP RR, NACK, PLI on loss), for tests and for people checking a
/// stream: writes the access units, counts frames, keyframes and losses, and with --decode decodes with libavcodec.
struct ReceiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Receive an H.264 or H.265 RTP stream, report frames and losses, optionally save and decode it.",
        discussion: "Prints a JSON report on stdout at the end: frames, keyframes, packets, lost packets, NACKs and PLIs sent "
            + "(and why: pli_reasons), decoded frames and decode errors.\n\nUntil it has an IDR it can decode — at the start, "
            + "after a lost frame, after the decoder rejected one — it sends PLI (at most every 300 ms), and the sender "
            + "answers with an IDR carrying SPS/PPS. An IDR that arrives first without SPS/PPS (the first packet lost) has the "
            + "packets before it NACKed (start_packets_nacked, start_packets_recovered) and is held until they come back, "
            + "PLI after 100 ms if they do not. With --sdp, the SDP's sprop-parameter-sets are used for an IDR that "
            + "arrives without its own (the first packet lost): in front of it for the decoder and in the -o file."
    )

    @Option(help: "Read port, payload type, parameter sets (and SRTP key) from this SDP (as written by `rtenc stream`).")
    var sdp: String?

    @Option(help: "The codec without --sdp (h264 or avc, hevc or h265; default h264); with --sdp its rtpmap (H264/H265) decides.")
    var codec: CodecArgument?

    @Option(parsing: .unconditional,
            help: "Listen for RTP on this port, 1…65535 (RTCP on the next one unless --rtcp-mux); with --sdp, instead of the SDP's port (a relay in between).",
            transform: OptionNumber.integer(1...UInt16.max))
    var port: UInt16?

    @Option(help: ArgumentHelp("Local address to listen on (numeric IPv4 or IPv6, or localhost).", default: "0.0.0.0",
                               valueName: "address"),
            transform: NumericAddress.parse)
    var bind = "0.0.0.0"

    @Flag(help: "RTP and RTCP on one port.")
    var rtcpMux = false

    @Option(name: .shortAndLong, help: "Write the received access units to this Annex-B file (.h264, or .h265/.hevc for H.265).")
    var output: String?

    @Flag(help: "Decode with libavcodec and count decoded frames and errors.")
    var decode = false

    @Flag(help: ArgumentHelp(
        "Decode (implies --decode) and read the wall clock the sender drew into each picture (`rtenc stream "
            + "testsrc:barcode`): report glass-to-glass latency, capture to decoded picture, as latency_ms.",
        discussion: "Sender and receiver must share a clock (one host, or NTP-synchronised hosts)."))
    var barcodeLatency = false

    @Option(parsing: .unconditional,
            help: "Stop after this many access units.", transform: OptionNumber.integer(1...Int.max, unit: "access units"))
    var frames: Int?

    @Option(parsing: .unconditional,
            help: "Stop after this many seconds.",
            transform: OptionNumber.decimal(expected: "more than 0 seconds") { $0 > 0 })
    var timeout: Double?

    @Flag(help: "Do not send NACKs for missing packets.")
    var noNack = false

    @Flag(help: "Do not send PLI, neither when an access unit is lost nor when joining a stream without a keyframe.")
    var noPli = false

    @Option(help: ArgumentHelp(
        "Congestion-control feedback to send: transport-cc, ccfb (RFC 8888) or none (default: what the SDP asks for).",
        discussion: "A report every 100 ms while packets arrive. transport-cc reads the transport-wide sequence number extension with the SDP's a=extmap ID (3 without one: what `rtenc send --transport-cc` writes)."))
    var feedback: FeedbackArgument?

    @Flag(help: "No progress lines, only the final report.")
    var quiet = false

    @Option(help: ArgumentHelp(
        "SRTP master key and salt, base64 of 30 bytes (default: the SDP's a=crypto key, if any).", valueName: "base64"))
    var srtpKey: String?

    @Option(help: ArgumentHelp("SRTP master key and salt from a file only you can read (base64 of 30 bytes).", valueName: "file"))
    var srtpKeyFile: String?

    @Option(help: ArgumentHelp("SRTP crypto suite with --srtp-key (default: the SDP's, else AES_CM_128_HMAC_SHA1_80).", valueName: "suite"))
    var srtpSuite: SRTPSuiteArgument?

    func validate() throws {
        guard sdp != nil || port != nil else { throw ValidationError("give --sdp FILE or --port N (or both: the port then replaces the SDP's)") }
        if let port, port == UInt16.max, !rtcpMux {
            throw ValidationError("--port 65535 leaves no port for RTCP (use --rtcp-mux or another port)")
        }
        if let srtpKey { _ = try SRTPSuiteArgument.configuration(key: srtpKey, suite: .aesCM128HMACSHA1_80) }
        if srtpKey != nil, srtpKeyFile != nil { throw ValidationError("give --srtp-key or --srtp-key-file, not both") }
        if srtpSuite != nil, srtpKey == nil, srtpKeyFile == nil, sdp == nil { throw ValidationError("--srtp-suite needs --srtp-key or --srtp-key-file (or an SDP with a=crypto)") }
    }

    func run() throws {
        let stop = StopSignal()
        var listenPort = port ?? 0
        var rtcpMux = rtcpMux
        var payloadType: UInt8 = 96
        var parameterSets: [[UInt8]] = []
        var codec = self.codec?.codec ?? .h264
        var srtp: SRTPConfiguration?
        var wanted: FeedbackArgument = .none
        var transportCCID = NetworkOptions.transportCCExtensionID
        if let sdp {
            let text: String
            do { text = try String(contentsOfFile: sdp, encoding: .utf8) } catch {
                throw CLIError("receive: cannot read \(sdp): \(fileErrorText(error))")
            }
            let description: ReceivedSessionDescription
            do {
                description = try ReceivedSessionDescription(parsing: text)
            } catch {
                throw CLIError("receive: \(sdp) is not a usable SDP: \(error)")
            }
            if let given = self.codec?.codec, given != description.codec {
                throw CLIError("receive: \(sdp) offers \(CodecArgument.name(description.codec)), not \(CodecArgument.name(given)) as --codec says")
            }
            codec = description.codec
            listenPort = port ?? description.port
            rtcpMux = rtcpMux || description.rtcpMux
            payloadType = description.payloadType
            parameterSets = description.parameterSets
            srtp = description.srtp
            transportCCID = description.transportSequenceNumberID ?? transportCCID
            wanted = description.wantsTransportCC ? .transportCC : description.wantsCongestionControlFeedback ? .ccfb : .none
        }
        if let srtpKey {
            srtp = try SRTPSuiteArgument.configuration(key: srtpKey, suite: srtpSuite?.suite ?? srtp?.suite ?? .aesCM128HMACSHA1_80)
        } else if let srtpKeyFile {
            srtp = try SRTPSuiteArgument.configuration(
                fileKey: SRTPKeyFile.read(srtpKeyFile, command: "receive"), path: srtpKeyFile,
                suite: srtpSuite?.suite ?? srtp?.suite ?? .aesCM128HMACSHA1_80, command: "receive")
        } else if let srtpSuite, let keys = srtp {
            srtp = try SRTPConfiguration(suite: srtpSuite.suite, masterKeyAndSalt: keys.masterKeyAndSalt)
        }
        let address: SocketAddress
        do {
            address = try SocketAddress(host: bind, port: listenPort)
        } catch {
            throw CLIError("receive: --bind \(bind): \(error)")
        }
        var configuration = RTPReceiver.Configuration(
            localAddress: address, rtcpMux: rtcpMux, payloadType: payloadType, sendNACK: !noNack, sendPictureLossOnDrop: !noPli,
            srtp: srtp, parameterSets: parameterSets, codec: codec)
        configuration.congestionFeedback = switch feedback ?? wanted {
        case .none: nil
        case .transportCC: .transportCC(extensionID: transportCCID)
        case .ccfb: .rfc8888
        }
        let queue = ReceivedQueue()
        let receiver: RTPReceiver
        do {
            receiver = try RTPReceiver(
                configuration: configuration,
                onAccessUnit: { queue.push($0) })
        } catch {
            throw CLIError.sockets("receive: cannot listen on \(bind):\(listenPort)", error,
                                   portOption: sdp == nil ? "--port" : "--port instead of --sdp")
        }
        defer { receiver.close() }

        var writer: AnnexBFileWriter?
        if let output {
            try EncodedFileSink.checkAnnexBOutput(output, codec: codec, command: "receive")
            do { writer = try AnnexBFileWriter(path: output) } catch { throw CLIError("receive: cannot write \(output): \(error)") }
        }
        var decoder: AccessUnitDecoder?
        let latencies = BarcodeLatencies()
        if decode || barcodeLatency {
            do { decoder = try AccessUnitDecoder(codec: codec) } catch { throw CLIError("receive: cannot open the decoder: \(error)") }
            if barcodeLatency { decoder?.onLuma = latencies.read }
        }
        var primer = ParameterSetPrimer(codec: codec, parameterSets: parameterSets)

        var report = ReceiveReport()
        let started = MonotonicTime.now()
        var lastProgress = started
        var status = StatusLine()
        /// Counts, saves and decodes one access unit; false once `--frames` is reached.
        func consume(_ unit: ReceivedAccessUnit) throws -> Bool {
            if let frames, report.frames >= frames { return false }
            report.frames += 1
            if unit.isKeyframe { report.keyframes += 1 }
            let received = unit.annexB
            report.bytes += received.count
            // The SDP's (or earlier in-band) parameter sets in front of a keyframe that came without: for the file and
            // the decoder.
            let primed = primer.prime(unit)
            let bytes = primed.nalUnits.count == unit.nalUnits.count ? received : primed.annexB
            do { try writer?.write(bytes) } catch { throw CLIError("receive: cannot write \(output ?? ""): \(error)") }
            if let decoder {
                let errors = decoder.errors
                decoder.decode(annexB: bytes)
                if decoder.errors > errors { receiver.decoderFailed(rtpTimestamp: unit.timestamp) }
            }
            return frames.map { report.frames < $0 } ?? true
        }
        loop: while !stop.isStopped {
            // Checked before what arrived is counted: an H.265 stream read as H.264 would only be garbage.
            try checkCodec(receiver.statistics, listenPort: listenPort)
            for unit in queue.take() {
                guard try consume(unit) else { break loop }
            }
            let now = MonotonicTime.now()
            if let timeout, now - started >= timeout { break }
            if receiver.statistics.goodbyeReceived && queue.isEmpty { break }
            if !quiet, now - lastProgress >= 1 {
                lastProgress = now
                status.show(String(cFormat: "%6.1f s  ", now - started) + "\(report.frames) frames  "
                                + "\(report.keyframes) keyframes  \(receiver.statistics.packetsLost) lost packets")
            }
            usleep(5_000)
        }
        status.finish()
        // Closing flushes the reorder buffer: what it held still counts, is written and decoded.
        receiver.close()
        try checkCodec(receiver.statistics, listenPort: listenPort)
        for unit in queue.take() {
            guard try consume(unit) else { break }
        }
        decoder?.finish()
        do { try writer?.close() } catch { throw CLIError("receive: cannot finish \(output ?? ""): \(error)") }
        report.fill(from: receiver.statistics, decoder: decoder)
        if barcodeLatency { report.latency = latencies.summary() }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        Console.standardOutput.write(try encoder.encode(report) + Data("\n".utf8))
    }
}

extension ReceiveCommand {
    /// Refuses to go on reading an H.265 stream as H.264 (the default without --codec or --sdp): the receiver
    /// counts H.265 parameter-set payloads it got as H.264 (`OtherCodecPayload`), and one is enough — it cannot be
    /// H.264. Never a silent guess: the user says the codec.
    func checkCodec(_ statistics: RTPReceiver.Statistics, listenPort: UInt16) throws {
        guard statistics.otherCodecPackets > 0 else { return }
        let packets = "receive: the RTP packets on port \(listenPort) are H.265 (RFC 7798 VPS/SPS/PPS), not H.264 as "
        if let sdp {
            // --codec cannot overrule an SDP's rtpmap: the SDP is the wrong one.
            throw CLIError(packets + "\(sdp) offers: give the SDP the sender wrote (its rtpmap says H265/90000)")
        }
        let told = self.codec != nil ? "--codec says" : "assumed without --codec"
        throw CLIError(packets + "\(told): add --codec h265 (or give the sender's SDP with --sdp)")
    }
}

/// `receive --feedback`.
enum FeedbackArgument: String, ExpressibleByArgument, CaseIterable {
    case transportCC = "transport-cc"
    case ccfb
    case none
}

/// Access units handed over from the receiver's I/O thread.
final class ReceivedQueue: Sendable {
    private let units = Mutex<[ReceivedAccessUnit]>([])

    func push(_ unit: ReceivedAccessUnit) { units.withLock { $0.append(unit) } }

    func take() -> [ReceivedAccessUnit] {
        units.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }

    var isEmpty: Bool { units.withLock { $0.isEmpty } }
}

/// The JSON `rtenc receive` prints at the end.
struct ReceiveReport: Encodable {
    var frames = 0
    var keyframes = 0
    var bytes = 0
    var packets = 0
    var packetsLost = 0
    var accessUnitsDropped = 0
    var malformedPackets = 0
    var nacksSent = 0
    var plisSent = 0
    /// Why the PLIs were sent (`PictureRecovery.Reason` raw values), only the reasons that occurred.
    var pliReasons: [String: Int] = [:]
    /// Sequence numbers NACKed before the first packet (it came without SPS/PPS), and how many came back.
    var startPacketsNacked = 0
    var startPacketsRecovered = 0
    var byeReceived = false
    /// Congestion-control feedback packets sent (transport-cc or RFC 8888).
    var feedbackSent = 0
    /// SRTP/SRTCP packets that failed authentication, dropped unread.
    var authFailures = 0
    /// SRTP/SRTCP packets replayed or older than the replay window, dropped.
    var replayedPackets = 0
    var decodedFrames: Int?
    var decodeErrors: Int?
    var lastDecodeError: String?
    var width: Int?
    var height: Int?
    /// With --barcode-latency: capture → decoded picture, from the clock barcode.
    var latency: BarcodeLatencies.Summary?

    mutating func fill(from statistics: RTPReceiver.Statistics, decoder: AccessUnitDecoder?) {
        packets = statistics.packetsReceived
        packetsLost = statistics.packetsLost
        accessUnitsDropped = statistics.accessUnitsDropped
        malformedPackets = statistics.malformedPackets
        nacksSent = statistics.nacksSent
        plisSent = statistics.pictureLossIndicationsSent
        pliReasons = Dictionary(uniqueKeysWithValues: statistics.pictureLossReasons.map { ($0.key.rawValue, $0.value) })
        startPacketsNacked = statistics.startPacketsRequested
        startPacketsRecovered = statistics.startPacketsRecovered
        byeReceived = statistics.goodbyeReceived
        feedbackSent = statistics.congestionFeedbackSent
        authFailures = statistics.authenticationFailures
        replayedPackets = statistics.replayedPackets
        if let decoder {
            decodedFrames = decoder.framesDecoded
            decodeErrors = decoder.errors
            lastDecodeError = decoder.lastError
            width = decoder.width
            height = decoder.height
        }
    }

    enum CodingKeys: String, CodingKey {
        case frames, keyframes, bytes, packets, width, height
        case latency = "latency_ms"
        case packetsLost = "packets_lost"
        case accessUnitsDropped = "access_units_dropped"
        case malformedPackets = "malformed_packets"
        case nacksSent = "nacks_sent"
        case plisSent = "plis_sent"
        case pliReasons = "pli_reasons"
        case startPacketsNacked = "start_packets_nacked"
        case startPacketsRecovered = "start_packets_recovered"
        case byeReceived = "bye_received"
        case feedbackSent = "feedback_sent"
        case authFailures = "auth_failures"
        case replayedPackets = "replayed_packets"
        case decodedFrames = "decoded_frames"
        case decodeErrors = "decode_errors"
        case lastDecodeError = "last_decode_error"
    }
}
