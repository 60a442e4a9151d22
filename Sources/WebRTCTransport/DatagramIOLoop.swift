import CongestionControl
import Glibc
import MediaCore
import RTPOut
import Synchronization

/// The sans-IO state a WebRTC transport's I/O thread drives (a `WebRTCServer`'s viewers, a `WebRTCPublisher`'s peer):
/// datagrams and the time in, datagrams to send and the next deadline out. Memory work only: it runs under the
/// transport's lock, and the thread does every system call outside it.
protocol DatagramMachine: ~Copyable {
    /// One received datagram and its source.
    mutating func handle(datagram: ArraySlice<UInt8>, from source: SocketAddress, at now: ServerTime, into out: inout [OutgoingDatagram])
    /// Lets time pass; returns when to be called again at the latest.
    mutating func service(at now: ServerTime, into out: inout [OutgoingDatagram]) -> Instant?
    /// The transport is stopping: end every peer (RTCP BYE, DTLS close_notify).
    mutating func beginStop(at now: ServerTime)
    /// Nobody is left to say goodbye to: the thread may end before its drain time.
    var isDrained: Bool { get }
}

/// The I/O thread of a WebRTC transport: read what arrived (outside the lock), run the sans-IO machines (inside),
/// send what they produced (outside), sleep until the earliest timer — pacer, RTCP, DTLS retransmission, ICE — or a
/// datagram or a wake-up (an access unit queued, a session added or ended).
enum DatagramIOLoop {
    /// Datagrams read per turn before the machines are serviced (so a flood cannot starve the pacer).
    static let readBatch = 64
    /// The longest poll(2): the loop looks at the stop flag at least this often.
    static let idleWait: Duration = .milliseconds(100)
    /// How long a stop lets the peers' BYEs drain.
    static let stopDrain: Duration = .seconds(2)

    static func run<State: DatagramMachine & ~Copyable>(
        socket: UDPSocket, wake: WakeSignal, state: borrowing Mutex<State>, now clock: () -> ServerTime, isStopping: () -> Bool
    ) {
        var poller = Poller(readable: [socket.fileDescriptor, wake.fileDescriptor])
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
        defer { buffer.deallocate() }
        var stopDeadline: Instant?
        var received: [([UInt8], SocketAddress)] = []
        while true {
            received.removeAll(keepingCapacity: true)
            while received.count < readBatch {
                guard let (count, from) = (try? socket.receive(into: buffer)) ?? nil else { break }
                received.append((Array(buffer[0 ..< count]), from))
            }
            if poller.isReadable(wake.fileDescriptor) { wake.drain() }
            let now = clock()
            if stopDeadline == nil, isStopping() {
                stopDeadline = now.instant + stopDrain
                state.withLock { $0.beginStop(at: now) }
            }
            let (outgoing, next, drained) = state.withLock { state -> ([OutgoingDatagram], Instant?, Bool) in
                var out: [OutgoingDatagram] = []
                for (bytes, from) in received { state.handle(datagram: bytes[...], from: from, at: now, into: &out) }
                let next = state.service(at: now, into: &out)
                return (out, next, state.isDrained)
            }
            for datagram in outgoing {
                // A failed send is a lost datagram: ICE retries, DTLS retransmits, NACK repairs media.
                _ = datagram.bytes.withUnsafeBytes { try? socket.send($0, to: datagram.destination) }
            }
            if let stopDeadline, drained || now.instant >= stopDeadline { return }
            if received.count == readBatch { continue }
            var wait = idleWait
            if let next { wait = min(wait, max(.zero, next - now.instant)) }
            if let stopDeadline { wait = min(wait, max(.zero, stopDeadline - now.instant)) }
            poller.wait(timeout: wait)
        }
    }
}

/// What both transports' states keep for their owner's encoder loop: the keyframe flag, the operator's log and the
/// one per-frame decision (`FrameDecider`).
protocol EncoderFacingState: ~Copyable {
    var keyframeWanted: Bool { get set }
    var log: [String] { get set }
    var decider: FrameDecider { get set }
}

extension EncoderFacingState where Self: ~Copyable {
    /// The keyframe flag, cleared: true once per request.
    mutating func takeKeyframeRequest() -> Bool {
        defer { keyframeWanted = false }
        return keyframeWanted
    }

    /// What to do with the next frame, given the longest expected queue time among the peers, the rate policy's
    /// target and the lowest byte budget among the peers' controllers (0: one of them skips it): `FrameDecider`'s
    /// rules. A keyframe request that meets a skipped frame waits in the decider for the next frame encoded.
    mutating func frameDecision(queueTime: Duration?, target: UInt64, frameByteLimit: Int?, mustEncode: Bool,
                                at now: ServerTime) -> WebRTCFrameDecision {
        let decision = decider.decide(at: now.instant, queueTime: queueTime, target: target, frameByteLimit: frameByteLimit,
                                      keyframeRequested: takeKeyframeRequest(), mustEncode: mustEncode)
        return WebRTCFrameDecision(decision, queueTime: queueTime, policyTarget: target)
    }

    /// The log lines since the last call, oldest first.
    mutating func takeLog() -> [String] {
        defer { log.removeAll() }
        return log
    }
}
