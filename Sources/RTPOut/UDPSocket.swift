import CUDPShim
import Glibc

/// A non-blocking UDP socket: the one place RTPOut talks to the kernel about datagrams.
///
/// Sending uses sendmmsg(2) (through CUDPShim) so a burst of packets costs one system call; see `sendBatch`.
/// Errors come back as `RTPError` with code `.system`, except the ones a stream must survive, which are reported
/// as `SendOutcome` values: EAGAIN (socket buffer full: try again later) and ECONNREFUSED (ICMP port unreachable
/// on a connected socket: the peer is not listening yet; the stream goes on).
public final class UDPSocket {
    package enum SendOutcome: Equatable, Sendable {
        case sent(Int)
        case wouldBlock
        case connectionRefused
        /// Only from `sendBatch(segmented: true)`: UDP GSO is not available here; nothing was sent.
        case segmentationUnsupported
    }

    package let fileDescriptor: Int32
    public let localAddress: SocketAddress
    package private(set) var connectedPeer: SocketAddress?

    /// Binds to `address` (port 0 = any free port). `sendBufferSize` raises SO_SNDBUF so an unpaced keyframe fits.
    public init(bindTo address: SocketAddress, sendBufferSize: Int32? = 1 << 20, receiveBufferSize: Int32? = 1 << 20) throws(RTPError) {
        let family = address.family == .ipv4 ? AF_INET : AF_INET6
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno: errno) }
        for (option, value) in [(SO_SNDBUF, sendBufferSize), (SO_RCVBUF, receiveBufferSize)] {
            guard var size = value else { continue }
            _ = setsockopt(fd, SOL_SOCKET, option, &size, socklen_t(MemoryLayout<Int32>.size))  // best effort
        }
        let bound = address.withSockAddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .system("bind \(address)", errno: code)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0, let local = SocketAddress(storage: storage) else {
            let code = errno
            close(fd)
            throw .system("getsockname", errno: code)
        }
        fileDescriptor = fd
        localAddress = local
    }

    deinit { close(fileDescriptor) }

    /// Fixes the destination: sends need no address and the kernel reports ICMP errors (ECONNREFUSED).
    /// Incoming datagrams from other addresses are then filtered by the kernel, so do not connect an RTCP socket.
    package func connect(to peer: SocketAddress) throws(RTPError) {
        let result = peer.withSockAddr { Glibc.connect(fileDescriptor, $0, $1) }
        guard result == 0 else { throw .system("connect \(peer)", errno: errno) }
        connectedPeer = peer
    }

    /// Sends one datagram (to `address`, or to the connected peer when nil).
    package func send(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress? = nil) throws(RTPError) -> SendOutcome {
        let result: Int = if let address {
            address.withSockAddr { sendto(fileDescriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, $1) }
        } else {
            Glibc.send(fileDescriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        }
        if result >= 0 { return .sent(1) }
        return try Self.outcome(errno: errno, call: "sendto")
    }

    /// Sends datagrams with sendmmsg(2), at most `CUDP_MAX_BATCH` per call; `.sent(n)` may be fewer than given.
    ///
    /// `segmented`: runs of equal-sized datagrams go out as UDP GSO messages (UDP_SEGMENT), so the kernel builds
    /// and routes each run once — the same datagrams on the wire, a fraction of the CPU (see ARCHITECTURE.md).
    /// `.segmentationUnsupported` means the kernel or the route refused that (old kernel, no checksum offload,
    /// IPsec, a segment above the path MTU) and nothing was sent: send again without it.
    package func sendBatch(_ datagrams: UnsafeBufferPointer<cudp_datagram>, to address: SocketAddress? = nil,
                          segmented: Bool = false) throws(RTPError) -> SendOutcome {
        guard !datagrams.isEmpty else { return .sent(0) }
        let count = UInt32(min(datagrams.count, Int(CUDP_MAX_BATCH)))
        let send = segmented ? cudp_sendmmsg_segmented : cudp_sendmmsg
        let result: Int32 = if let address {
            address.withSockAddr { send(fileDescriptor, datagrams.baseAddress, count, $0, $1, Int32(MSG_NOSIGNAL)) }
        } else {
            send(fileDescriptor, datagrams.baseAddress, count, nil, 0, Int32(MSG_NOSIGNAL))
        }
        if result >= 0 { return .sent(Int(result)) }
        let code = errno
        if segmented, [EIO, EINVAL, ENOPROTOOPT, EOPNOTSUPP, EMSGSIZE].contains(code) { return .segmentationUnsupported }
        return try Self.outcome(errno: code, call: "sendmmsg")
    }

    private static func outcome(errno code: Int32, call: String) throws(RTPError) -> SendOutcome {
        switch code {
        case EAGAIN, EWOULDBLOCK, ENOBUFS: return .wouldBlock
        case ECONNREFUSED: return .connectionRefused
        default: throw .system(call, errno: code)
        }
    }

    /// Takes the socket's pending error (SO_ERROR, which reading clears) and tells whether it was ECONNREFUSED: an
    /// ICMP port unreachable for a datagram sent since the last send or check. Only a connected socket gets these.
    package func takePendingRefusal() -> Bool {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fileDescriptor, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return false }
        return code == ECONNREFUSED
    }

    /// Waits up to `timeout` for room in the send buffer (or a pending error, which the next send reports).
    /// True when the socket is ready; false on timeout (EINTR reads as not ready; callers loop).
    package func waitUntilWritable(timeout: Duration) -> Bool {
        !waitForEvents(readable: [], writable: [fileDescriptor], timeout: timeout).isEmpty
    }

    /// Reads one datagram if one is waiting; nil when none is (EAGAIN) or after a reported ICMP error.
    package func receive(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> (count: Int, from: SocketAddress)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(fileDescriptor, buffer.baseAddress, buffer.count, 0, $0, &length)
            }
        }
        if result < 0 {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == ECONNREFUSED || code == EINTR { return nil }
            throw .system("recvfrom", errno: code)
        }
        guard let from = SocketAddress(storage: storage) else { return nil }
        return (result, from)
    }
}

/// poll(2) over a fixed set of descriptors, with its `pollfd` array allocated once (the I/O loops call it for
/// every batch, so it must not allocate).
package struct Poller {
    private var fds: [pollfd]
    private let writableCandidate: Int32?

    /// `writable`: a descriptor watched for POLLOUT only while `watchWritable(true)` (after EAGAIN). Otherwise it
    /// is left out entirely (fd −1), so a pending ICMP error on it cannot make poll spin; the next send reports it.
    package init(readable descriptors: [Int32], writable: Int32? = nil) {
        fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        writableCandidate = writable
        if writable != nil { fds.append(pollfd(fd: -1, events: Int16(POLLOUT), revents: 0)) }
    }

    mutating func watchWritable(_ on: Bool) {
        guard let candidate = writableCandidate else { return }
        fds[fds.count - 1].fd = on ? candidate : -1
    }

    /// Waits up to `timeout`; EINTR reads as "nothing ready".
    package mutating func wait(timeout: Duration) {
        let milliseconds = Int32(clamping: max(0, (timeout.nanoseconds + 999_999) / 1_000_000))
        for i in fds.indices { fds[i].revents = 0 }
        _ = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), milliseconds) }
    }

    package func isReadable(_ descriptor: Int32) -> Bool {
        fds.contains { $0.fd == descriptor && $0.events & Int16(POLLIN) != 0 && $0.revents != 0 }
    }
}

/// Waits for any of `descriptors` to become readable (or writable, for those in `writable`), up to `timeout`.
/// Returns the descriptors that are ready. EINTR reads as "nothing ready".
func waitForEvents(readable descriptors: [Int32], writable: [Int32] = [], timeout: Duration) -> Set<Int32> {
    var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    fds += writable.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
    let milliseconds = Int32(clamping: max(0, (timeout.nanoseconds + 999_999) / 1_000_000))
    let result = poll(&fds, nfds_t(fds.count), milliseconds)
    guard result > 0 else { return [] }
    return Set(fds.filter { $0.revents != 0 }.map(\.fd))
}

/// Wall-clock now, read in exactly one place.
package func wallClockNow() -> RTPInstant {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return RTPInstant(nanosecondsSinceEpoch: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
}

/// An eventfd that wakes the I/O loop's poll when the producer queued packets.
package final class WakeSignal {
    package let fileDescriptor: Int32

    package init() throws(RTPError) {
        let fd = cudp_eventfd()
        guard fd >= 0 else { throw .system("eventfd", errno: errno) }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    package func signal() {
        var one: UInt64 = 1
        _ = write(fileDescriptor, &one, 8)
    }

    package func drain() {
        var value: UInt64 = 0
        _ = read(fileDescriptor, &value, 8)
    }
}
