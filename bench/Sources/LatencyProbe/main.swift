// Latency probe (issue 6): per-frame time from `CompressionSession.encode()` to the last RTP packet of that frame
// arriving on a loopback socket in this process, at 720p30 real time, split into codec time and ours.
//
//   LatencyProbe IN.y4m [--frames 600] [--preset veryfast] [--unpaced] [--port 47020]
//
// Per frame: t0 before encode(); the session's FrameStats give the whole call (encodeMicroseconds) and its part
// outside avcodec_send_frame/receive_packet (overheadMicroseconds); then RTPSender.send (packetize + queue); the
// sender's I/O thread paces (2.5 × the bit rate, as `rtenc stream`) and sends with sendmmsg; a receiver thread
// here timestamps the marker packet. "handed to the socket" is measured as "arrived on loopback", which adds the
// kernel's loopback delivery and the receiver thread's wake-up (tens of µs) to our share.
#if canImport(Glibc)
    import Glibc
#endif
import Bitstream
import EncoderSession
import Foundation
import RTPOut
import Synchronization

func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

func sleep(untilNanoseconds deadline: UInt64) {
    var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("LatencyProbe: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let frameCount = Int(option("--frames") ?? "600") ?? 600
let preset = CompressionSession.Preset(rawValue: option("--preset") ?? "veryfast") ?? .veryfast
let port = UInt16(option("--port") ?? "47020") ?? 47020
let unpaced = arguments.contains("--unpaced")
// The input comes first: LatencyProbe IN.y4m [options].
guard let path = arguments.first, !path.hasPrefix("--"), let frames = Y4MFrames(path: path) else {
    fail("usage: LatencyProbe IN.y4m [--frames N] [--preset P] [--port N] [--unpaced]")
}

// Receiver: arrival time of each marker packet (the last packet of a frame), by RTP timestamp.
let arrivals = Mutex<[UInt32: UInt64]>([:])
let receiving = Atomic<Bool>(true)
let receiver = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
var address = sockaddr_in()
address.sin_family = sa_family_t(AF_INET)
address.sin_port = port.bigEndian
address.sin_addr.s_addr = inet_addr("127.0.0.1")
var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
var bufferSize: Int32 = 8 << 20
setsockopt(receiver, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
}
guard bound == 0 else { fail("cannot bind 127.0.0.1:\(port)") }
let receiverThread = Thread {
    var packet = [UInt8](repeating: 0, count: 2048)
    while receiving.load(ordering: .relaxed) {
        let count = packet.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, 2048, 0) }
        let now = monotonicNanoseconds()
        guard count >= 12, packet[1] & 0x80 != 0 else { continue }  // RTP marker bit: the frame's last packet
        let timestamp = UInt32(packet[4]) << 24 | UInt32(packet[5]) << 16 | UInt32(packet[6]) << 8 | UInt32(packet[7])
        arrivals.withLock { $0[timestamp] = now }
    }
}
receiverThread.start()

// Sender: `rtenc stream`'s defaults (2 Mb/s, paced at 2.5 × unless --unpaced), timestamps = frame index × 3000.
let destination = try SocketAddress(host: "127.0.0.1", port: port)
let sender = try RTPSender(configuration: RTPSenderConfiguration(
    destination: destination, destinationRTCPPort: port + 1, pacing: unpaced ? .unpaced : .paced(targetBitrate: 2_000_000),
    timestampOffset: 0))

let outputs = Mutex<[EncoderOutput]>([])
var configuration = CompressionSession.Configuration.realTimeCommunication(
    width: frames.width, height: frames.height, averageBitRate: 2_000_000, pixelFormat: .i420,
    profileLevel: ProfileLevel(profile: .constrainedBaseline, level: frames.height > 720 ? .level4 : .level3_1),
    encoder: .software, expectedFrameRate: 30)
configuration.preset = preset
configuration.threadCount = 2
let session = try CompressionSession(configuration: configuration) { output in outputs.withLock { $0.append(output) } }

struct Sample { var start: UInt64; var encodeMicroseconds: Double; var overheadMicroseconds: Double; var sent: UInt64 }
var samples: [UInt32: Sample] = [:]
var buffer = PixelBuffer(format: .i420, width: frames.width, height: frames.height)
let start = monotonicNanoseconds() + 100_000_000
for index in 0..<frameCount {
    guard frames.next(into: &buffer) else { fail("\(path): no frame \(index)") }
    sleep(untilNanoseconds: start + UInt64(index) * 1_000_000_000 / 30)
    let t0 = monotonicNanoseconds()
    try session.encode(buffer, presentationTime: MediaTime(value: Int64(index) * 3000, timescale: 90_000), context: index)
    let ready = outputs.withLock { pending in
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }
    for output in ready {
        guard let frame = output.frame else { continue }
        let timestamp = try sender.send(frame.accessUnit)  // timestampOffset 0: what the receiver sees
        samples[timestamp] = Sample(start: t0, encodeMicroseconds: output.stats.encodeMicroseconds,
                                    overheadMicroseconds: output.stats.overheadMicroseconds, sent: monotonicNanoseconds())
    }
}
try session.completeFrames()
sender.close()
usleep(300_000)
receiving.store(false, ordering: .relaxed)
usleep(200_000)

// Per frame (µs): total = marker arrival − t0; codec = time inside avcodec_send_frame/receive_packet;
// ours = total − codec, of which session = the session's overhead and rtp = after encode() returned (packetize,
// queue, pacing, sendmmsg, loopback).
var rows: [(total: Double, codec: Double, ours: Double, session: Double, rtp: Double)] = []
let received = arrivals.withLock { $0 }
for (timestamp, sample) in samples {
    guard let arrival = received[timestamp], arrival >= sample.start else { continue }
    let total = Double(arrival - sample.start) / 1000
    let codec = sample.encodeMicroseconds - sample.overheadMicroseconds
    rows.append((total, codec, total - codec, sample.overheadMicroseconds, total - sample.encodeMicroseconds))
}
func percentiles(_ values: [Double]) -> [String: Double] {
    let sorted = values.sorted()
    func at(_ fraction: Double) -> Double { sorted[min(sorted.count - 1, Int((fraction * Double(sorted.count - 1)).rounded()))] }
    return ["p50": at(0.5), "p99": at(0.99), "max": sorted.last ?? 0]
}
guard !rows.isEmpty else { fail("no marker packet arrived") }
let summary: [String: Any] = [
    "frames": frameCount, "measured": rows.count, "preset": preset.rawValue, "paced": !unpaced,
    "width": frames.width, "height": frames.height,
    "total_us": percentiles(rows.map(\.total)), "codec_us": percentiles(rows.map(\.codec)),
    "ours_us": percentiles(rows.map(\.ours)), "session_overhead_us": percentiles(rows.map(\.session)),
    "after_encode_us": percentiles(rows.map(\.rtp)),
]
let json = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
