import Foundation

/// Waits until `path` exists (a file another process writes), up to `timeout`.
public func waitForFile(_ path: String, timeout: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if FileManager.default.fileExists(atPath: path) { return true }
        usleep(20_000)
    }
    return false
}

/// True once something has bound UDP `port` on this machine (read from /proc/net/udp and udp6).
public func waitUntilBound(udpPort port: UInt16, timeout: TimeInterval) -> Bool {
    let hex = String(format: ":%04X", port)
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            // Field 2 of each row is the local address "HEXADDR:HEXPORT".
            if let text = readWhole(table),
               text.split(separator: "\n").contains(where: { $0.split(separator: " ").dropFirst().first?.hasSuffix(hex) == true }) {
                usleep(100_000)
                return true
            }
        }
        usleep(50_000)
    }
    return false
}

/// The whole of a /proc file. /proc reports a size of 0, and `String(contentsOfFile:)` then stops after its first
/// buffer (4 KiB: about 30 sockets of /proc/net/udp), so with many sockets open a bound port was missed; read until
/// read(2) says end of file.
func readWhole(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        bytes.append(contentsOf: chunk[..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// UDP port pairs (even RTP port, RTCP on +1) unlikely to collide between tests running in parallel, or with another
/// test process: 10000…20098, spread by process id and call. Below the kernel's ephemeral range (32768…60999 here,
/// /proc/sys/net/ipv4/ip_local_port_range), where every socket bound to port 0 — ours, ffmpeg's, GStreamer's — takes
/// a port at random and a fixed test port could be taken already.
public enum TestPorts {
    private static let counter = Counter()

    public static func next() -> UInt16 {
        let base = 10_000 + Int(getpid() % 100) * 100
        return UInt16(base + counter.increment() * 2)
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() -> Int {
            lock.withLock {
                value += 1
                return value % 50
            }
        }
    }
}
