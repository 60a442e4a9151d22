import CUDPShim
import Glibc
import Synchronization

/// The thread body behind `RTPSenderIOLoop`: the members' `SenderCore`s and one epoll instance over their sockets.
///
/// Each member is serviced (`SenderCore.serviceOnce`, the same turn a dedicated thread takes) when its own time is
/// due (pacer, RTCP report, close), when its RTCP socket is readable or its blocked RTP socket writable, or when it
/// asked (`pending`, set by `send`). A request writes to the eventfd only while the thread sleeps (`asleep`), so a
/// burst of `send` calls from encoder threads costs one wake-up, not one each. epoll rather than poll(2): a wake-up
/// then costs the same with 100 members as with one (poll over 100 sockets took 4 % of the CPU at 75 streams).
///
/// `@unchecked Sendable`: the inbox and the flags are a `Mutex` and atomics; everything else (members, epoll
/// registrations) is touched by the loop's thread only.
final class SharedSenderLoop: @unchecked Sendable {
    private struct Inbox {
        var added: [(SenderCore, CompletionSignal)] = []
        var stopping = false
    }

    private struct Member {
        let core: SenderCore
        let done: CompletionSignal
        var due: RTPInstant
        var readable = false
        var writable = false
        /// The RTP socket is registered for EPOLLOUT (only while a send would block, as in the dedicated loop).
        var watchingWritable = false
    }

    let wake: WakeSignal
    let memberCount = Atomic<Int>(0)
    private let epoll: Int32
    private let inbox = Mutex(Inbox())
    /// True from just before the thread's last look for work until it returns from epoll_wait.
    private let asleep = Atomic<Bool>(false)
    /// When the sleeping thread wakes by itself (its timeout), in nanoseconds since the epoch.
    private let wakesAt = Atomic<Int64>(0)
    /// A request does not wake a thread that wakes by itself within this: its packets wait at most this long,
    /// where waking would cost a context switch per access unit (at 60 streams, 1,800 a second, each with an
    /// eventfd write on the encoding thread). The pacer spreads a frame over several milliseconds anyway.
    static let holdBack: Duration = .milliseconds(1)
    private static let wakeToken = UInt64.max
    private static let readyCapacity = 64

    init() throws(RTPError) {
        wake = try WakeSignal()
        epoll = cudp_epoll_create()
        guard epoll >= 0 else { throw .system("epoll_create1", errno: errno) }
        guard cudp_epoll_add(epoll, wake.fileDescriptor, CUDP_EPOLL_IN, Self.wakeToken) == 0 else {
            let code = errno
            close(epoll)
            throw .system("epoll_ctl", errno: code)
        }
    }

    deinit { close(epoll) }

    /// Starts serving `core`; the signal fires once the core is done (its BYE sent) or the loop stops.
    func add(_ core: SenderCore) -> CompletionSignal {
        let done = CompletionSignal()
        inbox.withLock { $0.added.append((core, done)) }
        memberCount.add(1, ordering: .relaxed)
        notify()
        return done
    }

    /// Wakes the thread if it sleeps, unless it wakes within `holdBack` anyway; if it is awake it will look at every
    /// member's `pending` before sleeping.
    func notify() {
        guard asleep.load(ordering: .sequentiallyConsistent) else { return }
        let wakeTime = RTPInstant(nanosecondsSinceEpoch: wakesAt.load(ordering: .sequentiallyConsistent))
        if wakeTime - wallClockNow() <= Self.holdBack { return }
        if asleep.exchange(false, ordering: .sequentiallyConsistent) { wake.signal() }
    }

    func stop() {
        inbox.withLock { $0.stopping = true }
        notify()
    }

    func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SenderCore.maxRTCPDatagram, alignment: 8)
        let ready = UnsafeMutablePointer<cudp_epoll_ready>.allocate(capacity: Self.readyCapacity)
        defer {
            buffer.deallocate()
            ready.deallocate()
        }
        // Slots keep their index while a member lives (its epoll token is slot × 2, + 1 for its RTP socket).
        var slots: [Member?] = []
        var freeSlots: [Int] = []
        var added: [(SenderCore, CompletionSignal)] = []
        while true {
            let stopping = inbox.withLock { inbox in
                swap(&added, &inbox.added)
                return inbox.stopping
            }
            for (core, done) in added {
                let slot = freeSlots.popLast() ?? slots.count
                if slot == slots.count { slots.append(nil) }
                slots[slot] = Member(core: core, done: done, due: RTPInstant(nanosecondsSinceEpoch: .min))
                // Cannot fail for a fresh socket on a live epoll instance short of ENOMEM; the member's timers still
                // run then, only its RTCP would go unread.
                _ = cudp_epoll_add(epoll, core.rtcpSocket.fileDescriptor, CUDP_EPOLL_IN, UInt64(slot) << 1)
            }
            added.removeAll(keepingCapacity: true)
            if stopping {
                for case let member? in slots { member.done.signal() }
                memberCount.subtract(slots.count - freeSlots.count, ordering: .relaxed)
                return
            }
            let now = wallClockNow()
            var next = now + SenderCore.maxWait
            for slot in slots.indices {
                guard var member = slots[slot] else { continue }
                let core = member.core
                let requested = core.pending.exchange(false, ordering: .sequentiallyConsistent)
                if member.readable || member.writable || requested || member.due <= now {
                    if member.readable { core.readRTCP(into: buffer) }
                    member.readable = false
                    member.writable = false
                    let (wait, blocked, done) = core.serviceOnce(now: now)
                    let watch = blocked && !done
                    if watch != member.watchingWritable {
                        let descriptor = core.rtpSocket.fileDescriptor
                        if core.rtpSocket === core.rtcpSocket {
                            // rtcp-mux: one descriptor, already watched for RTCP; any readiness services the member.
                            let events = watch ? CUDP_EPOLL_IN | CUDP_EPOLL_OUT : CUDP_EPOLL_IN
                            _ = cudp_epoll_modify(epoll, descriptor, UInt32(events), UInt64(slot) << 1)
                        } else if watch {
                            _ = cudp_epoll_add(epoll, descriptor, CUDP_EPOLL_OUT, UInt64(slot) << 1 | 1)
                        } else {
                            _ = cudp_epoll_remove(epoll, descriptor)
                        }
                        member.watchingWritable = watch
                    }
                    if done {
                        _ = cudp_epoll_remove(epoll, core.rtcpSocket.fileDescriptor)
                        slots[slot] = nil
                        freeSlots.append(slot)
                        memberCount.subtract(1, ordering: .relaxed)
                        member.done.signal()
                        continue
                    }
                    member.due = now + min(wait, SenderCore.maxWait)
                    slots[slot] = member
                }
                next = min(next, member.due)
            }
            // Announce the sleep, then look once more: a request made before the announcement is seen here, one made
            // after it finds `asleep` set and writes to the eventfd unless the timeout below is near (both sides are
            // sequentially consistent).
            let timeout = next - wallClockNow()
            let milliseconds = Int32(clamping: max(0, (timeout.nanoseconds + 999_999) / 1_000_000))
            wakesAt.store(wallClockNow().nanosecondsSinceEpoch + Int64(milliseconds) * 1_000_000, ordering: .sequentiallyConsistent)
            asleep.store(true, ordering: .sequentiallyConsistent)
            let requested = slots.contains { $0?.core.pending.load(ordering: .sequentiallyConsistent) ?? false }
            if requested || inbox.withLock({ !$0.added.isEmpty || $0.stopping }) {
                asleep.store(false, ordering: .sequentiallyConsistent)
                continue
            }
            let count = Int(cudp_epoll_wait(epoll, ready, Int32(Self.readyCapacity), milliseconds))
            asleep.store(false, ordering: .sequentiallyConsistent)
            for event in UnsafeBufferPointer(start: ready, count: count) {
                if event.token == Self.wakeToken {
                    wake.drain()
                    continue
                }
                let slot = Int(event.token >> 1)
                guard slot < slots.count, slots[slot] != nil else { continue }
                if event.token & 1 == 0 { slots[slot]?.readable = true } else { slots[slot]?.writable = true }
            }
        }
    }
}

/// A one-shot signal one thread waits for (a POSIX semaphore): `close()` waits for the shared loop to finish a sender.
final class CompletionSignal: @unchecked Sendable {
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func signal() { sem_post(semaphore) }

    func wait() {
        while sem_wait(semaphore) != 0, errno == EINTR {}
    }
}
