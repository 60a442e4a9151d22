#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import FoundationEssentials
import MediaCore
import RTPOut
import StreamControl

/// Where and how RTP goes, for `stream` and `send`.
struct NetworkOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Destination HOST:PORT for RTP (RTCP goes to PORT+1 unless --rtcp-mux); IPv6 as [::1]:5004.",
        default: Self.defaultDestination, valueName: "host:port"),
            transform: Endpoint.parse)
    var to = Self.defaultDestination

    @Option(parsing: .unconditional,
            help: ArgumentHelp(
                "Local RTP port (0: any free port); RTCP from the peer is received on N+1 unless --rtcp-mux.", default: 0),
            transform: OptionNumber.integer(0...UInt16.max))
    var localPort: UInt16 = 0

    @Flag(help: "RTP and RTCP on one port (RFC 5761).")
    var rtcpMux = false

    @Option(help: "Write the SDP that describes the stream here, before the first packet.")
    var sdp = "stream.sdp"

    @Option(parsing: .unconditional,
            help: ArgumentHelp(
                "Seconds to wait after writing the SDP before the first packet, 0…3600 (lets a receiver start first).",
                default: 0, valueName: "seconds"),
            transform: OptionNumber.decimal(0...3600, unit: "seconds"))
    var startDelay = 0.0

    @Option(parsing: .unconditional,
            help: ArgumentHelp(
                "Maximum RTP payload size in bytes (FU-A fragments larger NAL units).",
                default: H264PayloaderConfiguration.defaultMaxPayloadSize),
            transform: NetworkOptions.mtuParser)
    var mtu = H264PayloaderConfiguration.defaultMaxPayloadSize

    @Option(parsing: .unconditional,
            help: ArgumentHelp("RFC 6184 packetization-mode: 0 (single NAL unit) or 1 (STAP-A and FU-A).", default: 1),
            transform: NetworkOptions.modeParser)
    var mode = 1

    @Option(help: "STAP-A aggregation.")
    var aggregation = AggregationArgument.zeroLatency

    @Option(parsing: .unconditional,
            help: ArgumentHelp("RTP payload type, 96…127 (dynamic).", default: 96),
            transform: OptionNumber.integer(96...127, unit: "(the dynamic payload types)"))
    var payloadType: UInt8 = 96

    @Option(parsing: .unconditional,
            help: "RTP SSRC, 1…4294967295 (default: random).", transform: OptionNumber.integer(1...UInt32.max))
    var ssrc: UInt32?

    @Flag(help: "Send every packet at once instead of pacing at 2.5 × the bit rate.")
    var noPacing = false

    @Option(parsing: .unconditional,
            help: ArgumentHelp(
                "Seconds between the last media packet and the RTCP BYE, 0…10.", default: 0.5, valueName: "seconds",
                discussion: "Receivers end the stream at a BYE even with media still unread; the delay lets them read it. Skipped when nobody listens on the destination port."),
            transform: OptionNumber.decimal(0...10, unit: "seconds"))
    var byeDelay = 0.5

    @Flag(help: ArgumentHelp(
        "Number every packet with the transport-wide sequence number (header extension ID 3) and read transport-cc feedback.",
        discussion: "The SDP asks for it (a=extmap, a=rtcp-fb transport-cc); `rtenc receive` and Chromium answer with transport-cc reports, counted in the sender's statistics. Rate decisions follow them with --cc gcc (which implies this flag)."))
    var transportCC = false

    @Flag(help: "Write abs-send-time (header extension ID 2), for receivers that estimate the rate themselves (REMB).")
    var absSendTime = false

    @Flag(help: "Ask for RFC 8888 congestion control feedback (a=rtcp-fb:* ack ccfb) and read it.")
    var ccfb = false

    @Flag(help: ArgumentHelp(
        "Encrypt and authenticate RTP and RTCP with SRTP/SRTCP (RFC 3711).",
        discussion: "A new random key per run unless --srtp-key; it goes into the SDP (RFC 4568 a=crypto, RTP/SAVP), which is then written with mode 0600. Keys never appear in logs or stats."))
    var srtp = false

    @Option(help: ArgumentHelp("SRTP crypto suite (implies --srtp).", valueName: "suite"))
    var srtpSuite: SRTPSuiteArgument?

    @Option(help: ArgumentHelp(
        "SRTP master key and salt: base64 of 30 bytes (implies --srtp). Visible to local users in the process list.",
        valueName: "base64"))
    var srtpKey: String?

    @Option(help: ArgumentHelp(
        "SRTP master key and salt from a file only you can read (base64 of 30 bytes; implies --srtp).",
        valueName: "file"))
    var srtpKeyFile: String?

    /// Whether this run uses SRTP.
    var usesSRTP: Bool { srtp || srtpSuite != nil || srtpKey != nil || srtpKeyFile != nil }

    /// The SRTP keys of this run, nil without SRTP: --srtp-key, --srtp-key-file, or fresh ones from getrandom(2).
    func srtpConfiguration(command: String) throws -> SRTPConfiguration? {
        guard usesSRTP else { return nil }
        let suite = (srtpSuite ?? .aes80).suite
        if let srtpKey { return try SRTPSuiteArgument.configuration(key: srtpKey, suite: suite) }
        if let srtpKeyFile {
            return try SRTPSuiteArgument.configuration(fileKey: SRTPKeyFile.read(srtpKeyFile, command: command),
                                                       path: srtpKeyFile, suite: suite, command: command)
        }
        do {
            return try SRTPConfiguration.random(suite: suite)
        } catch {
            throw CLIError("\(command): cannot make an SRTP key: \(error)")
        }
    }

    enum AggregationArgument: String, ExpressibleByArgument, CaseIterable {
        case none
        case zeroLatency = "zero-latency"
        case max

        var aggregation: H264PayloaderConfiguration.Aggregation {
            switch self {
            case .none: .none
            case .zeroLatency: .zeroLatency
            case .max: .max
            }
        }
    }

    static let defaultDestination = Endpoint(host: "127.0.0.1", port: 5004)

    /// `--mtu`, shared with `packetize`.
    static let mtuParser = OptionNumber.integer(100...H264PayloaderConfiguration.maxMaxPayloadSize, unit: "bytes")
    /// `--mode`, shared with `packetize`: RFC 6184's packetization-mode 0 or 1 (2, interleaved, is not offered).
    static let modeParser = OptionNumber.integer(0...1, unit: "(RFC 6184 packetization-mode)")

    func validate() throws {
        guard localPort == 0 || rtcpMux || localPort < UInt16.max else {
            throw ValidationError("--local-port 65535 leaves no port for RTCP; use 1…65534, or --rtcp-mux")
        }
        if let srtpKey { _ = try SRTPSuiteArgument.configuration(key: srtpKey, suite: .aesCM128HMACSHA1_80) }
        if srtpKey != nil, srtpKeyFile != nil { throw ValidationError("give --srtp-key or --srtp-key-file, not both") }
    }

    /// The plain-RTP options given other than as their defaults (`stream --whip` refuses them: WebRTC negotiates all
    /// of this). An option given with its default value is indistinguishable here, and harmless.
    var plainRTPOptionsGiven: [String] {
        var given: [String] = []
        if to != Self.defaultDestination { given.append("--to") }
        if localPort != 0 { given.append("--local-port") }
        if rtcpMux { given.append("--rtcp-mux") }
        if sdp != "stream.sdp" { given.append("--sdp") }
        if startDelay != 0 { given.append("--start-delay") }
        if mtu != H264PayloaderConfiguration.defaultMaxPayloadSize { given.append("--mtu") }
        if mode != 1 { given.append("--mode") }
        if aggregation != .zeroLatency { given.append("--aggregation") }
        if payloadType != 96 { given.append("--payload-type") }
        if ssrc != nil { given.append("--ssrc") }
        if noPacing { given.append("--no-pacing") }
        if byeDelay != 0.5 { given.append("--bye-delay") }
        if transportCC { given.append("--transport-cc") }
        if absSendTime { given.append("--abs-send-time") }
        if ccfb { given.append("--ccfb") }
        if usesSRTP { given.append("--srtp") }
        return given
    }

    /// The sender's configuration for a stream at `bitsPerSecond`.
    func senderConfiguration(bitsPerSecond: Int, codec: VideoCodec = .h264, command: String) throws -> RTPSenderConfiguration {
        // RFC 7798 has no packetization modes: HEVC always aggregates and fragments.
        guard codec == .h264 || mode == 1 else {
            throw CLIError("\(command): --mode \(mode) is RFC 6184's packetization-mode for H.264; HEVC (RFC 7798) has none")
        }
        let keys = try srtpConfiguration(command: command)
        let destination = try HostResolver.resolve(to, command: command)
        let packetizationMode: H264PayloaderConfiguration.PacketizationMode = mode == 0 ? .singleNALUnit : .nonInterleaved
        var configuration = RTPSenderConfiguration(
            destination: destination, localRTPPort: localPort, rtcpMux: rtcpMux, payloadType: payloadType,
            ssrc: ssrc ?? .random(in: 1 ... .max), cname: "rtenc@\(ProcessInfo.processInfo.hostName)",
            payloader: H264PayloaderConfiguration(
                packetizationMode: packetizationMode, aggregation: aggregation.aggregation, maxPayloadSize: mtu),
            pacing: noPacing ? .unpaced : .paced(targetBitrate: UInt64(bitsPerSecond)),
            goodbyeDelay: .nanoseconds(Int64((byeDelay * 1e9).rounded())), srtp: keys, codec: codec)
        configuration.headerExtensions = RTPSendHeaderExtensions(
            transportSequenceNumberID: transportCC ? Self.transportCCExtensionID : nil,
            absoluteSendTimeID: absSendTime ? Self.absSendTimeExtensionID : nil)
        configuration.acceptsCongestionControlFeedback = ccfb
        return configuration
    }

    /// The header extension IDs rtenc's SDP declares (libwebrtc's defaults for the two).
    static let transportCCExtensionID: UInt8 = 3
    static let absSendTimeExtensionID: UInt8 = 2

    /// The end-of-run words about congestion-control feedback, when it was asked for.
    func feedbackSummary(_ statistics: RTPSenderStatistics, controller: LiveBitrateController? = nil) -> String {
        guard transportCC || ccfb || statistics.feedbackReports > 0 else { return "" }
        let probes = controller.map { "; \($0.policyName): last target \($0.allocation.encoderBitRate) b/s, "
            + "\($0.probeClusters.started) probe clusters (\(statistics.paddingPacketsSent) padding packets)" } ?? ""
        return "; feedback: \(statistics.feedbackReports) reports, \(statistics.feedbackPacketsReceived) packets reported received, "
            + "\(statistics.feedbackPacketsLost) lost" + probes
    }

    /// The `-protocol_whitelist` ffmpeg/ffplay need for our SDP.
    var playerProtocols: String { usesSRTP ? "file,udp,rtp,srtp" : "file,udp,rtp" }

    /// Writes the SDP atomically (temporary name, then rename) so a player never reads half of it. An SDP that
    /// carries an SRTP key is created with mode 0600 from its first byte (open(2), not chmod afterwards).
    func writeSDP(_ description: SessionDescription, command: String) throws {
        do {
            try description.write(toFile: sdp)  // atomic, 0600 when it carries an SRTP key
        } catch {
            throw CLIError("\(command): cannot write \(sdp): \(error.reason)")
        }
    }
}

/// Host names to numeric addresses (getaddrinfo), at the CLI's edge: RTPOut itself takes numeric addresses only.
enum HostResolver {
    static func resolve(_ endpoint: Endpoint, command: String) throws -> SocketAddress {
        if let numeric = try? SocketAddress(host: endpoint.host, port: endpoint.port) { return numeric }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, nil, &hints, &result)
        guard status == 0, let first = result else {
            throw CLIError("\(command): cannot resolve host \(endpoint.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0,
                          NI_NUMERICHOST) == 0 else {
            throw CLIError("\(command): cannot resolve host \(endpoint.host)")
        }
        let numeric = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        do {
            return try SocketAddress(host: numeric, port: endpoint.port)
        } catch {
            throw CLIError("\(command): cannot use address \(numeric) of \(endpoint.host): \(error)")
        }
    }
}

/// `--srtp-suite`: the RFC 4568 names.
enum SRTPSuiteArgument: String, ExpressibleByArgument, CaseIterable {
    case aes80 = "AES_CM_128_HMAC_SHA1_80"
    case aes32 = "AES_CM_128_HMAC_SHA1_32"

    var suite: SRTPConfiguration.Suite { self == .aes80 ? .aesCM128HMACSHA1_80 : .aesCM128HMACSHA1_32 }

    /// A key from the command line. A bad one is a usage error (exit 64) whose message never repeats the value:
    /// ArgumentParser's own "invalid value" message would, hence a String option checked here.
    static func configuration(key: String, suite: SRTPConfiguration.Suite) throws -> SRTPConfiguration {
        do {
            return try SRTPConfiguration(suite: suite, base64: key.trimmingWhitespace()[...])
        } catch {
            throw ValidationError("--srtp-key must be the base64 of 30 bytes (16-byte master key, 14-byte salt)")
        }
    }

    /// The same for a key read from `path` (a runtime error: the file, not the command line, is wrong).
    static func configuration(fileKey: String, path: String, suite: SRTPConfiguration.Suite, command: String) throws -> SRTPConfiguration {
        do {
            return try SRTPConfiguration(suite: suite, base64: fileKey[...])
        } catch {
            throw CLIError("\(command): --srtp-key-file \(path) must hold the base64 of 30 bytes (16-byte master key, 14-byte salt)")
        }
    }
}
