// Scale probe (issue 6): N sessions of 640x360 at 30 fps in one process — each its own CompressionSession (libx264
// ultrafast, one thread, WebRTC's configuration) and RTPSender (paced, to a loopback port nobody reads) — driven in
// real time by worker threads on one real-time clock. A round is one worker encoding and sending the current frame
// of each of its sessions; it is late when it ends after the 33 ms frame period (every frame in it was late then).
// This is the probe's own view; `make bench-scale` judges from the receiving side (bench/scripts/scale_receiver.py).
//
//   ScaleProbe IN.y4m --sessions N [--seconds 6] [--port-base 48000] [--workers 2] [--schedule share|edf]
//              [--io shared|own] [--encode-only] [--flat-out] [--stagger] [--no-peer | --external-peer]
//
// --schedule share (the default): each worker owns an equal share of the sessions and runs them as one round per
// frame period. --schedule edf: a pool of --workers threads; each takes the session whose frame is due soonest
// (earliest deadline first, `DeadlineQueue`), encodes and sends that one frame and puts the session back; with
// --stagger each session has its own phase of the frame period. A round is then one frame.
// --external-peer: another process (the receiver) has bound the destination ports; the probe binds none.
//
// --io shared (the default): every sender is served by one `RTPSenderIOLoop`, as a process running many streams
// would do; --io own gives each sender its own I/O thread (RTPSender's default). --workers: threads driving the
// sessions, each owning an equal share; 2 matches the cores, more lets the kernel run another worker while one is
// preempted (an app with a thread per stream is the far end). --encode-only: no RTPSender at all (the codec and
// EncoderSession alone, for the comparison in BENCHMARKS.md). --flat-out: no waiting for due times, so
// frames_per_second is the throughput (lateness is then meaningless). --stagger: worker w's frames fall due w/workers
// of a frame period after worker 0's, as streams from independent sources do (with --workers equal to --sessions,
// one thread per stream, each on its own phase); without it every worker's frames fall due at the same instant.
//
// Prints one JSON line: sessions, frames, late rounds, dropped frames, worst lateness, RSS before and after, RSS per
// session, the threads of the process while running, and the CPU time (user + system) per frame. The content is the
// first 60 frames of IN.y4m (ffmpeg's testsrc2 in `make bench`), held in memory and shared, each session starting at
// another frame so they do not encode identical pictures in lockstep.
#if canImport(Glibc)
    import Glibc
#endif
import Bitstream
import EncoderSession
import Foundation
import MediaIO
import RTPOut
import Synchronization

func monotonicSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func residentMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kib / 1024
}

/// CPU seconds (user + system) of the whole process so far.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ScaleProbe: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
guard let path = arguments.first, !path.hasPrefix("--") else {
    fail("usage: ScaleProbe IN.y4m --sessions N [--seconds 6] [--port-base 48000] [--workers 2] [--schedule share|edf] [--io shared|own] [--encode-only] [--flat-out] [--stagger] [--no-peer | --external-peer]")
}
guard let sessionCount = option("--sessions").flatMap(Int.init), sessionCount > 0 else { fail("--sessions N") }
let seconds = option("--seconds").flatMap(Double.init) ?? 6
let workers = option("--workers").flatMap(Int.init) ?? 2
guard workers > 0 else { fail("--workers N") }
let sharedIO = (option("--io") ?? "shared") == "shared"
enum Schedule: String { case share, edf }
guard let schedule = Schedule(rawValue: option("--schedule") ?? "share") else { fail("--schedule share|edf") }
let encodeOnly = arguments.contains("--encode-only")
let flatOut = arguments.contains("--flat-out")
let stagger = arguments.contains("--stagger")
let portBase = option("--port-base").flatMap(UInt16.init) ?? 48_000
let fps = 30.0

// Content: 60 frames in memory.
var frames: [PixelBuffer] = []
do {
    var reader = try Y4MReader(path: path, format: .i420)
    var buffer = reader.makeBuffer()
    while frames.count < 60, try reader.nextFrame(into: &buffer) != nil { frames.append(buffer) }
} catch {
    fail("\(path): \(error)")
}
guard let first = frames.first else { fail("\(path) has no frames") }

/// What a session's output handler delivered during `encode()`, taken by the worker that called it.
final class Inbox: Sendable {
    private let queue = Mutex<[EncoderOutput]>([])
    func put(_ output: EncoderOutput) { queue.withLock { $0.append(output) } }
    func take() -> [EncoderOutput] { queue.withLock { queue in defer { queue.removeAll() }; return queue } }
}

/// One stream: only its worker thread touches it.
final class Session: @unchecked Sendable {
    let encoder: CompressionSession
    let sender: RTPSender?
    let inbox = Inbox()
    let offset: Int
    var dropped = 0

    init(index: Int, width: Int, height: Int, port: UInt16, sends: Bool, ioLoop: RTPSenderIOLoop?) throws {
        offset = index * 7
        var configuration = CompressionSession.Configuration.realTimeCommunication(
            width: width, height: height, averageBitRate: 800_000, pixelFormat: .i420,
            profileLevel: ProfileLevel(profile: .constrainedBaseline, level: .level3), encoder: .software,
            expectedFrameRate: 30)
        configuration.preset = .ultrafast
        configuration.threadCount = 1
        let inbox = self.inbox
        encoder = try CompressionSession(configuration: configuration) { inbox.put($0) }
        sender = !sends ? nil : try RTPSender(
            configuration: RTPSenderConfiguration(destination: SocketAddress(host: "127.0.0.1", port: port),
                                                  pacing: .paced(targetBitrate: 800_000)),
            ioLoop: ioLoop)
    }

    /// Encodes and sends frame `tick` of this session.
    func step(_ tick: Int, frames: [PixelBuffer]) throws {
        let time = MediaTime(value: Int64(tick), timescale: 30)
        try encoder.encode(frames[(tick + offset) % frames.count], presentationTime: time, context: tick)
        for output in inbox.take() {
            guard let frame = output.frame else {
                dropped += 1
                continue
            }
            try sender?.send(frame.accessUnit)
        }
    }
}

// The peer: a bound socket on every destination port (RTP and RTCP) that nobody reads. Its receive buffer fills and
// the kernel then drops what arrives, as a network would take it; a closed port would instead answer every packet
// with ICMP port unreachable, which costs the sending process (ECONNREFUSED, resends) what no real peer does.
// --no-peer leaves the ports closed (how this probe ran before; for comparison).
var sinks: [UDPSocket] = []
if !encodeOnly, !arguments.contains("--no-peer"), !arguments.contains("--external-peer") {
    do {
        for index in 0..<min(sessionCount, 500) {
            let port = portBase &+ UInt16(index) &* 2
            for offset: UInt16 in [0, 1] {
                sinks.append(try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: port &+ offset),
                                           sendBufferSize: nil, receiveBufferSize: nil))
            }
        }
    } catch {
        fail("binding the peer's ports from \(portBase): \(error) (try another --port-base)")
    }
}

let rssBefore = residentMiB()
var sessions: [Session] = []
do {
    let ioLoop = sharedIO && !encodeOnly ? try RTPSenderIOLoop() : nil
    for index in 0..<sessionCount {
        sessions.append(try Session(index: index, width: first.width, height: first.height,
                                    port: portBase &+ UInt16(index % 500) &* 2, sends: !encodeOnly, ioLoop: ioLoop))
    }
} catch {
    fail("opening session \(sessions.count): \(error)")
}

// The workers, on one shared real-time clock.
let ticks = Int(seconds * fps)
let start = monotonicSeconds() + 0.2
let late = Mutex<(count: Int, worst: Double)>((0, 0))
let failure = Mutex<String?>(nil)
let threadsRunning = Mutex(0)
let sharedFrames = frames
let sharedSessions = sessions

/// Lateness as the probe sees it, counted per worker and merged once: a shared lock taken by 90 late threads spun
/// for 3 % of the CPU.
struct LatenessTally {
    var count = 0
    var worst = 0.0
    /// A round (or frame) due at `due` that ended at `end`: late when it ended after its frame period.
    mutating func record(due: Double, end: Double) {
        let lateness = end - (due + 1 / fps)
        guard lateness > 0 else { return }
        count += 1
        worst = max(worst, lateness)
    }
    func merge() { late.withLock { [count, worst] in $0.count += count; $0.worst = max($0.worst, worst) } }
}

@Sendable func waitUntil(_ due: Double) {
    let wait = due - monotonicSeconds()
    if wait > 0, !flatOut { usleep(UInt32(wait * 1_000_000)) }
}

/// --schedule share: worker `worker` owns every `workers`-th session and runs them as one round per frame period.
@Sendable func runShare(worker: Int) {
    let mine = stride(from: worker, to: sharedSessions.count, by: workers).map { sharedSessions[$0] }
    let phase = stagger ? Double(worker) / Double(workers) : 0
    var tally = LatenessTally()
    for tick in 0..<ticks {
        let due = start + (Double(tick) + phase) / fps
        waitUntil(due)
        do {
            for session in mine { try session.step(tick, frames: sharedFrames) }
        } catch {
            failure.withLock { $0 = "\(error)" }
            break
        }
        tally.record(due: due, end: monotonicSeconds())
    }
    tally.merge()
}

/// --schedule edf: every worker takes the session whose frame is due soonest (`DeadlineQueue`), encodes and sends that
/// one frame, and puts the session back with its next frame's due time. A session is never in two workers' hands, so
/// its frames stay in order; one that has fallen behind keeps the earliest deadline until it has caught up.
@Sendable func runEDF(queue: DeadlineQueue) {
    var tally = LatenessTally()
    while let job = queue.takeEarliest() {
        waitUntil(job.due)
        do {
            try sharedSessions[job.session].step(job.tick, frames: sharedFrames)
        } catch {
            failure.withLock { $0 = "\(error)" }
            break
        }
        tally.record(due: job.due, end: monotonicSeconds())
        if job.tick + 1 < ticks { queue.put(session: job.session, tick: job.tick + 1) }
    }
    tally.merge()
}

let deadlines = DeadlineQueue(sessions: sharedSessions.count, start: start, fps: fps, staggered: stagger)
let group = DispatchGroup()
for worker in 0..<workers {
    group.enter()
    let thread = Thread {
        defer { group.leave() }
        switch schedule {
        case .share: runShare(worker: worker)
        case .edf: runEDF(queue: deadlines)
        }
    }
    thread.stackSize = 1 << 20
    thread.start()
}
let cpuStart = cpuSeconds()
let wallStart = monotonicSeconds()
// The threads of the process, counted halfway through (every worker, and every I/O thread, is running then).
let halfway = flatOut ? 0.05 : start + seconds / 2 - monotonicSeconds()
if halfway > 0 { usleep(UInt32(halfway * 1_000_000)) }
threadsRunning.withLock { $0 = threadCount() }
group.wait()
let wall = monotonicSeconds() - wallStart
if let message = failure.withLock({ $0 }) { fail(message) }
let rssAfter = residentMiB()
// Flat out, frames are queued faster than the pacers send them: the CPU per frame then includes sending the rest
// (waited for here, up to 30 s).
if flatOut {
    let deadline = monotonicSeconds() + 30
    while sessions.contains(where: { $0.sender?.isBusy ?? false }), monotonicSeconds() < deadline { usleep(5_000) }
}
let cpuPerFrame = (cpuSeconds() - cpuStart) / Double(ticks * sessionCount)
// Packets a full pacer queue refused (paced senders drop rather than stall the encoder): a receiver sees them missing.
let packetsDropped = sessions.reduce(0) { $0 + ($1.sender?.statistics.packetsDropped ?? 0) }
for session in sessions {
    session.encoder.invalidate()
    session.sender?.close(drainTimeout: .zero)
}
let (lateTicks, worst) = late.withLock { ($0.count, $0.worst) }
let result: [String: Any] = [
    "sessions": sessionCount, "seconds": seconds, "frames": ticks * sessionCount,
    // A late tick is a worker's round of its sessions that ended after the frame period: every frame in it was late.
    "rounds": schedule == .edf ? ticks * sessionCount : ticks * workers, "late_rounds": lateTicks, "worst_lateness_ms": (worst * 1000 * 10).rounded() / 10,
    "dropped": sessions.reduce(0) { $0 + $1.dropped }, "packets_dropped": packetsDropped,
    "rss_before_mib": (rssBefore * 10).rounded() / 10, "rss_after_mib": (rssAfter * 10).rounded() / 10,
    "rss_per_session_mib": ((rssAfter - rssBefore) / Double(sessionCount) * 100).rounded() / 100,
    "workers": workers, "schedule": schedule.rawValue, "staggered": stagger, "io": encodeOnly ? "none" : sharedIO ? "shared" : "own",
    "threads": threadsRunning.withLock { $0 },
    // CPU time of the whole process while the workers ran (I/O threads and the kernel's share included).
    "cpu_ms_per_frame": (cpuPerFrame * 1000 * 1000).rounded() / 1000,
    // With --flat-out (no waiting for due times) this is the pipeline's throughput, comparable with ffmpeg's.
    "frames_per_second": (Double(ticks * sessionCount) / wall).rounded(),
]
let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: data, as: UTF8.self))
