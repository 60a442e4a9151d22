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
            if let text = try? String(contentsOfFile: table, encoding: .utf8),
               text.split(separator: "\n").contains(where: { $0.split(separator: " ").dropFirst().first?.hasSuffix(hex) == true }) {
                usleep(100_000)
                return true
            }
        }
        usleep(50_000)
    }
    return false
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
