import Glibc
import MediaCore
import RTPOut

/// The UDP edge of the emulator: listens where the sender sends, pushes everything through a `NetworkLink`, and
/// forwards what survives to the receiver; the receiver's RTCP goes back through a return link to the sender.
///
///     sender RTP  ──▶ listen.port     ─┐                        ┌─ relay port X    ──▶ destination.port     RTP
///     sender RTCP ──▶ listen.port + 1 ─┴─ forward link (impair) ─┴─ relay port X+1 ──▶ destination.port + 1 SR
///     sender RTCP ◀── listen.port + 1 ◀── return link (delay) ◀──── relay port X+1 ◀── receiver RTCP (RR/NACK/PLI)
///
/// The relay's own side facing the receiver is a port pair (X, X+1) like a real sender's, because receivers answer
/// RTCP to the RTP source port + 1 (RFC 3550 §11; `RTPReceiver` does) or to where the sender reports come from.
/// Receiver RTCP goes to the address the sender's RTCP last came from, or before any, to its RTP source port + 1.
/// With `rtcpMux`, each side uses one port and RTCP is told apart by its packet type (RFC 5761 §4).
public final class UDPRelay {
    public struct Configuration: Sendable {
        /// Where the sender's RTP arrives (its RTCP on port + 1 unless `rtcpMux`).
        public var listen: SocketAddress
        /// Where RTP goes (RTCP to port + 1 unless `rtcpMux`).
        public var destination: SocketAddress
        public var rtcpMux: Bool
        public var profile: ImpairmentProfile
        public var seed: UInt64

        public init(listen: SocketAddress, destination: SocketAddress, rtcpMux: Bool = false,
                    profile: ImpairmentProfile = ImpairmentProfile(), seed: UInt64 = 1) {
            self.listen = listen
            self.destination = destination
            self.rtcpMux = rtcpMux
            self.profile = profile
            self.seed = seed
        }
    }

    public struct Statistics: Sendable, Equatable {
        /// Sender → receiver: RTP and the sender's RTCP.
        public var forward: NetworkLink<Datagram>.Statistics
        /// Receiver → sender: RTCP feedback.
        public var back: NetworkLink<Datagram>.Statistics
        /// Datagrams the kernel would not take (socket buffer full) or refused.
        public var sendFailures: Int
        /// Receiver RTCP that arrived before anything from the sender, so with nowhere to go.
        public var feedbackWithoutSender: Int
    }

    /// A datagram in flight and the socket it leaves from.
    public struct Datagram: Sendable {
        enum Exit: Sendable { case downstreamRTP, downstreamRTCP, upstreamRTCP }
        let exit: Exit
        let bytes: [UInt8]
    }

    static let maxDatagram = 65536
    /// The loop wakes at least this often (to notice a stop request).
    static let maxWait: Duration = .milliseconds(20)

    public let configuration: Configuration
    private let upstreamRTP: UDPSocket
    private let upstreamRTCP: UDPSocket
    private let downstreamRTP: UDPSocket
    private let downstreamRTCP: UDPSocket
    private var forward: NetworkLink<Datagram>
    private var back: NetworkLink<Datagram>
    private var senderRTP: SocketAddress?
    private var senderRTCP: SocketAddress?
    private var sendFailures = 0
    private var feedbackWithoutSender = 0
    private let start = MonotonicMediaClock().now

    public init(configuration: Configuration) throws(NetworkEmulatorError) {
        self.configuration = configuration
        forward = try NetworkLink(profile: configuration.profile, seed: configuration.seed)
        // A different stream of random numbers for the return path, still fixed by the seed.
        back = try NetworkLink(profile: configuration.profile.returnPath, seed: configuration.seed ^ 0x5DEE_CE66_D1CE_4E5B)
        do throws(RTPError) {
            upstreamRTP = try UDPSocket(bindTo: configuration.listen, receiveBufferSize: 4 << 20)
            upstreamRTCP = configuration.rtcpMux
                ? upstreamRTP : try UDPSocket(bindTo: configuration.listen.withPort(upstreamRTP.localAddress.port &+ 1))
            (downstreamRTP, downstreamRTCP) = try Self.openPair(family: configuration.destination.family, mux: configuration.rtcpMux)
        } catch {
            throw .system("cannot open the relay's sockets: \(error.reason)", errno: error.errno)
        }
    }

    /// Where the sender must send RTP.
    public var listenAddress: SocketAddress { upstreamRTP.localAddress }
    /// The relay's RTP source port as the receiver sees it (RTCP is on the next one unless muxed).
    public var forwardingAddress: SocketAddress { downstreamRTP.localAddress }

    public var statistics: Statistics {
        Statistics(forward: forward.statistics, back: back.statistics, sendFailures: sendFailures,
                   feedbackWithoutSender: feedbackWithoutSender)
    }

    /// Binds a free port pair (X even or not, X + 1) facing the receiver, retrying a few times if X + 1 is taken.
    private static func openPair(family: SocketAddress.Family, mux: Bool) throws(RTPError) -> (UDPSocket, UDPSocket) {
        let any = try SocketAddress(host: family == .ipv4 ? "0.0.0.0" : "::", port: 0)
        var attempts = 0
        while true {
            let rtp = try UDPSocket(bindTo: any)
            if mux { return (rtp, rtp) }
            do throws(RTPError) {
                return (rtp, try UDPSocket(bindTo: any.withPort(rtp.localAddress.port &+ 1)))
            } catch {
                attempts += 1
                if attempts == 16 { throw error }
            }
        }
    }

    /// Keep a `PacketRecord` of every packet offered to either link (for a per-packet log); `run`'s `onRecords`
    /// gets them.
    public var recordsPackets: Bool {
        get { forward.recordsPackets }
        set {
            forward.recordsPackets = newValue
            back.recordsPackets = newValue
        }
    }

    /// Relays until `shouldStop` returns true (checked at least every 20 ms). Packets still in flight then are lost.
    /// With `recordsPackets`, `onRecords` is handed the new records of each direction once per loop turn, on this
    /// thread (and once more at the end).
    public func run(until shouldStop: () -> Bool,
                    onRecords: (_ forward: [PacketRecord], _ back: [PacketRecord]) -> Void = { _, _ in }) {
        defer { passRecords(onRecords) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maxDatagram, alignment: 8)
        defer { buffer.deallocate() }
        let sockets = [upstreamRTP, upstreamRTCP, downstreamRTP, downstreamRTCP].reduce(into: [UDPSocket]()) { list, socket in
            if !list.contains(where: { $0 === socket }) { list.append(socket) }
        }
        var fds = sockets.map { pollfd(fd: $0.fileDescriptor, events: Int16(POLLIN), revents: 0) }
        while !shouldStop() {
            passRecords(onRecords)
            var now = elapsed()
            deliverDue(at: now)
            let next = [forward.nextDelivery, back.nextDelivery].compactMap { $0 }.min()
            let wait = min(Self.maxWait, max(.zero, (next ?? now + Self.maxWait) - now))
            let milliseconds = Int32(clamping: (wait.nanoseconds + 999_999) / 1_000_000)
            for i in fds.indices { fds[i].revents = 0 }
            guard poll(&fds, nfds_t(fds.count), milliseconds) > 0 else { continue }
            now = elapsed()
            for (index, socket) in sockets.enumerated() where fds[index].revents != 0 {
                drain(socket, buffer: buffer, now: now)
            }
        }
    }

    private func passRecords(_ onRecords: ([PacketRecord], [PacketRecord]) -> Void) {
        guard recordsPackets else { return }
        let forwardRecords = forward.takeRecords(), backRecords = back.takeRecords()
        if !forwardRecords.isEmpty || !backRecords.isEmpty { onRecords(forwardRecords, backRecords) }
    }

    private func drain(_ socket: UDPSocket, buffer: UnsafeMutableRawBufferPointer, now: Duration) {
        while true {
            let received: (count: Int, from: SocketAddress)?
            do throws(RTPError) { received = try socket.receive(into: buffer) } catch { return }
            guard let (count, from) = received else { return }
            let bytes = Array(UnsafeRawBufferPointer(rebasing: buffer[0 ..< count]))
            let isRTCP = socket === upstreamRTCP && (socket !== upstreamRTP || RTPSniffer.isRTCP(bytes))
                || socket === downstreamRTCP && (socket !== downstreamRTP || RTPSniffer.isRTCP(bytes))
            if socket === upstreamRTP || socket === upstreamRTCP {
                if isRTCP {
                    senderRTCP = from
                    forward.offer(Datagram(exit: .downstreamRTCP, bytes: bytes), bytes: count, kind: .rtcp, at: now)
                } else {
                    senderRTP = from
                    forward.offer(Datagram(exit: .downstreamRTP, bytes: bytes), bytes: count,
                                  rtpTimestamp: RTPSniffer.timestamp(bytes), rtpSequenceNumber: RTPSniffer.sequenceNumber(bytes),
                                  kind: RTPSniffer.isPaddingOnly(bytes) ? .padding : .media, at: now)
                }
            } else if isRTCP || socket === downstreamRTCP {
                back.offer(Datagram(exit: .upstreamRTCP, bytes: bytes), bytes: count, kind: .rtcp, at: now)
            }
            // Anything else from the receiver's side (RTP towards the sender) has no place in a one-way stream.
        }
    }

    private func deliverDue(at now: Duration) {
        forward.deliver(at: now) { send($0) }
        back.deliver(at: now) { send($0) }
    }

    private func send(_ datagram: Datagram) {
        let socket: UDPSocket
        let target: SocketAddress
        switch datagram.exit {
        case .downstreamRTP:
            socket = downstreamRTP
            target = configuration.destination
        case .downstreamRTCP:
            socket = downstreamRTCP
            target = configuration.rtcpMux ? configuration.destination : configuration.destination.withPort(configuration.destination.port &+ 1)
        case .upstreamRTCP:
            socket = upstreamRTCP
            guard let sender = senderRTCP ?? senderRTP.map({ configuration.rtcpMux ? $0 : $0.withPort($0.port &+ 1) }) else {
                feedbackWithoutSender += 1
                return
            }
            target = sender
        }
        let outcome = datagram.bytes.withUnsafeBytes { bytes in try? socket.send(bytes, to: target) }
        if outcome != .sent(1) { sendFailures += 1 }
    }

    private func elapsed() -> Duration { MonotonicMediaClock().now - start }
}

/// Just enough of RTP/RTCP to route and number packets without parsing them.
enum RTPSniffer {
    /// RFC 5761 §4: RTCP packet types 192…223 sit where RTP has the marker bit and payload type.
    static func isRTCP(_ bytes: [UInt8]) -> Bool { bytes.count > 1 && (192 ... 223).contains(bytes[1]) }

    /// A version-2 RTP packet whose padding (P bit, the count in its last byte) is all that follows its header, CSRCs
    /// and header extension (RFC 3550 §5.1, §5.3.1): a probe, no media.
    static func isPaddingOnly(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 12, bytes[0] >> 6 == 2, bytes[0] & 0x20 != 0, let count = bytes.last else { return false }
        var header = 12 + 4 * Int(bytes[0] & 0x0F)
        if bytes[0] & 0x10 != 0 {
            guard bytes.count >= header + 4 else { return false }
            header += 4 + 4 * (Int(bytes[header + 2]) << 8 | Int(bytes[header + 3]))
        }
        return count > 0 && header + Int(count) == bytes.count
    }

    /// The RTP sequence number (RFC 3550 §5.1, bytes 2…3) of a version-2 packet, else nil.
    static func sequenceNumber(_ bytes: [UInt8]) -> UInt16? {
        guard bytes.count >= 12, bytes[0] >> 6 == 2 else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// The RTP timestamp (RFC 3550 §5.1, bytes 4…7) of a version-2 packet, else nil.
    static func timestamp(_ bytes: [UInt8]) -> UInt32? {
        guard bytes.count >= 12, bytes[0] >> 6 == 2 else { return nil }
        return bytes[4 ..< 8].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
