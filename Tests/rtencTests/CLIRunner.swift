import Foundation
import Testing

/// Runs the built `rtenc` binary (or any tool) with a deadline, capturing stdout and stderr.
///
/// Every process a test starts is bounded: past `timeout` it gets SIGTERM, then SIGKILL a second later.
struct ProcessResult {
    var status: Int32
    var terminatedBySignal: Bool
    var stdout: Data
    var stderr: Data
    var timedOut: Bool

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

enum CLIRunner {
    /// The `rtenc` binary under test: `RTENC_BIN` (set by `make test`), else beside the test bundle.
    static var rtencPath: String {
        if let path = ProcessInfo.processInfo.environment["RTENC_BIN"], !path.isEmpty {
            return path
        }
        let bundle = Bundle.main.bundleURL.deletingLastPathComponent()
        return bundle.appendingPathComponent("rtenc").path
    }

    static func rtenc(_ arguments: [String], timeout: TimeInterval = 60, stdin: Data? = nil,
                      currentDirectory: URL? = nil) throws -> ProcessResult {
        try run(rtencPath, arguments, timeout: timeout, stdin: stdin, currentDirectory: currentDirectory)
    }

    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60, stdin: Data? = nil,
                    currentDirectory: URL? = nil) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : try which(executable))
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        let inPipe = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : inPipe

        // Drain both pipes concurrently so a chatty child never blocks on a full pipe.
        let collected = Collected()
        let group = DispatchGroup()
        for (pipe, isOut) in [(outPipe, true), (errPipe, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(data, isOut: isOut)
                group.leave()
            }
        }
        try process.run()
        if let stdin {
            DispatchQueue.global().async {
                try? inPipe.fileHandleForWriting.write(contentsOf: stdin)
                try? inPipe.fileHandleForWriting.close()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                process.terminate()
                let killAt = Date().addingTimeInterval(1)
                while process.isRunning && Date() < killAt { usleep(20_000) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                break
            }
            usleep(10_000)
        }
        process.waitUntilExit()
        group.wait()
        return ProcessResult(
            status: process.terminationStatus,
            terminatedBySignal: process.terminationReason == .uncaughtSignal,
            stdout: collected.out, stderr: collected.err, timedOut: timedOut)
    }

    static func which(_ name: String) throws -> String {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw CLITestError("\(name) not found on PATH")
    }

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rtenc-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

struct CLITestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var _out = Data()
    private var _err = Data()
    func set(_ data: Data, isOut: Bool) {
        lock.lock(); defer { lock.unlock() }
        if isOut { _out = data } else { _err = data }
    }
    var out: Data { lock.lock(); defer { lock.unlock() }; return _out }
    var err: Data { lock.lock(); defer { lock.unlock() }; return _err }
}

/// A process started in the background (a receiver, a sender) and stopped by the test: SIGTERM (or SIGINT), then
/// SIGKILL a second later; it is also killed at `deadline` if the test never stops it.
final class BackgroundProcess: @unchecked Sendable {
    private let process = Process()
    private let collected = Collected()
    private let group = DispatchGroup()

    init(_ executable: String, _ arguments: [String], deadline: TimeInterval, currentDirectory: URL? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : try CLIRunner.which(executable))
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.standardInput = FileHandle.nullDevice
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        for (pipe, isOut) in [(outPipe, true), (errPipe, false)] {
            group.enter()
            DispatchQueue.global().async { [collected, group] in
                collected.set(pipe.fileHandleForReading.readDataToEndOfFile(), isOut: isOut)
                group.leave()
            }
        }
        try process.run()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { [process] in
            if process.isRunning { kill(pid, SIGKILL) }
        }
    }

    var isRunning: Bool { process.isRunning }

    /// Waits up to `timeout` for the process to end by itself, then stops it with `signal`.
    func finish(within timeout: TimeInterval, signal: Int32 = SIGTERM) -> ProcessResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        var timedOut = false
        if process.isRunning {
            timedOut = true
            kill(process.processIdentifier, signal)
            let killAt = Date().addingTimeInterval(2)
            while process.isRunning && Date() < killAt { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        group.wait()
        return ProcessResult(status: process.terminationStatus,
                             terminatedBySignal: process.terminationReason == .uncaughtSignal,
                             stdout: collected.out, stderr: collected.err, timedOut: timedOut)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Waits until `path` exists (a file another process writes), up to `timeout`.
func waitForFile(_ path: String, timeout: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if FileManager.default.fileExists(atPath: path) { return true }
        usleep(20_000)
    }
    return false
}

/// A UDP port pair (even RTP port, RTCP on +1) unlikely to collide between tests running in parallel.
enum TestPorts {
    private static let counter = Counter()

    static func next() -> UInt16 {
        // Spread over 20000…29998 by process and call, even numbers only.
        let base = 20_000 + Int(getpid() % 200) * 100
        return UInt16(base + counter.increment() * 2)
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() -> Int {
            lock.lock(); defer { lock.unlock() }
            value += 1
            return value % 50
        }
    }
}

/// ffmpeg reading a stream from an SDP file and writing one framecrc line per decoded frame.
struct FFmpegSDPReceiver {
    struct Result {
        /// One line per decoded frame: "stream, dts, pts, duration, size, crc".
        var frames: [Substring]
        var log: String
    }

    private let process: BackgroundProcess

    /// Starts ffmpeg once `sdp` exists (the sender writes it before its first packet, then waits its
    /// --start-delay) and waits until ffmpeg listens on `port`: a receiver that misses the first IDR's packets
    /// decodes with errors, which would test the machine's load, not the stream. `protocols` is ffmpeg's
    /// -protocol_whitelist (SRTP streams: "file,udp,rtp,srtp").
    init(sdp: String, port: UInt16, protocols: String = "file,udp,rtp") throws {
        guard waitForFile(sdp, timeout: 10) else { throw CLITestError("no SDP at \(sdp)") }
        // A 4 MB socket buffer: on a loaded 2-core machine ffmpeg's default loses bursts of an IDR's packets.
        process = try BackgroundProcess("ffmpeg", [
            "-hide_banner", "-nostdin", "-protocol_whitelist", protocols, "-buffer_size", "4194304", "-i", sdp,
            "-f", "framecrc", "-",
        ], deadline: 30)
        guard waitUntilBound(udpPort: port, timeout: 2.5) else {
            throw CLITestError("ffmpeg did not listen on \(port) within 2.5 s, before the sender's start delay ran out")
        }
    }

    /// Gives ffmpeg half a second for the last packets, then stops it (SIGTERM: it flushes and exits).
    func finish() -> Result {
        usleep(500_000)
        let result = process.finish(within: 1, signal: SIGTERM)
        return Result(frames: result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") },
                      log: result.stderrText)
    }
}
