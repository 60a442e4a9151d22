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
