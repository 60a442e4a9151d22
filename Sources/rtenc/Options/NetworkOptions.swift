import ArgumentParser
import Foundation
import RTPOut

/// Where and how RTP goes, for `stream` and `send`.
struct NetworkOptions: ParsableArguments {
    @Option(help: "Destination HOST:PORT for RTP (RTCP goes to PORT+1 unless --rtcp-mux).")
    var to = Endpoint(host: "127.0.0.1", port: 5004)

    @Option(help: "Local RTP port (0: any free port); RTCP from the peer is received on N+1 unless --rtcp-mux.")
    var localPort: UInt16 = 0

    @Flag(help: "RTP and RTCP on one port (RFC 5761).")
    var rtcpMux = false

    @Option(help: "Write the SDP that describes the stream here, before the first packet.")
    var sdp = "stream.sdp"

    @Option(help: "Seconds to wait after writing the SDP before the first packet (lets a receiver start first).")
    var startDelay = 0.0

    @Option(help: "Maximum RTP payload size in bytes (FU-A fragments larger NAL units).")
    var mtu = H264PayloaderConfiguration.defaultMaxPayloadSize

    @Option(help: "RFC 6184 packetization-mode: 0 (single NAL unit) or 1 (STAP-A and FU-A).")
    var mode = 1

    @Option(help: "STAP-A aggregation: none | zero-latency | max.")
    var aggregation = AggregationArgument.zeroLatency

    @Option(help: "RTP payload type (96…127).")
    var payloadType: UInt8 = 96

    @Option(help: "RTP SSRC (default: random).")
    var ssrc: UInt32?

    @Flag(help: "Send every packet at once instead of pacing at 2.5 × the bit rate.")
    var noPacing = false

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

    func validate() throws {
        guard (100...H264PayloaderConfiguration.maxMaxPayloadSize).contains(mtu) else {
            throw ValidationError("--mtu must be 100…\(H264PayloaderConfiguration.maxMaxPayloadSize) bytes")
        }
        guard mode == 0 || mode == 1 else { throw ValidationError("--mode must be 0 or 1") }
        guard (96...127).contains(payloadType) else { throw ValidationError("--payload-type must be 96…127 (dynamic)") }
        guard startDelay >= 0, startDelay <= 3600 else { throw ValidationError("--start-delay must be 0…3600 s") }
        guard ssrc != 0 else { throw ValidationError("--ssrc must not be 0") }
        guard localPort == 0 || rtcpMux || localPort < UInt16.max else {
            throw ValidationError("--local-port \(localPort) leaves no port for RTCP")
        }
    }

    /// The sender's configuration for a stream at `bitsPerSecond`.
    func senderConfiguration(bitsPerSecond: Int, command: String) throws -> RTPSenderConfiguration {
        let destination = try HostResolver.resolve(to, command: command)
        let packetizationMode: H264PayloaderConfiguration.PacketizationMode = mode == 0 ? .singleNALUnit : .nonInterleaved
        return RTPSenderConfiguration(
            destination: destination, localRTPPort: localPort, rtcpMux: rtcpMux, payloadType: payloadType,
            ssrc: ssrc ?? .random(in: 1 ... .max), cname: "rtenc@\(ProcessInfo.processInfo.hostName)",
            payloader: H264PayloaderConfiguration(
                packetizationMode: packetizationMode, aggregation: aggregation.aggregation, maxPayloadSize: mtu),
            pacing: noPacing ? .unpaced : .paced(targetBitrate: UInt64(bitsPerSecond)))
    }

    /// Writes the SDP atomically (temporary name, then rename) so a player never reads half of it.
    func writeSDP(_ description: SessionDescription, command: String) throws {
        let temporary = sdp + ".partial"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(description.text.utf8)) else {
            throw CLIError("\(command): cannot write \(sdp)")
        }
        guard rename(temporary, sdp) == 0 else {
            unlink(temporary)
            throw CLIError("\(command): cannot write \(sdp): \(String(cString: strerror(errno)))")
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
