import Foundation

/// What a finished child process left: its status, how it ended, and everything it wrote.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var terminatedBySignal: Bool
    public var stdout: Data
    public var stderr: Data
    /// The process outlived its deadline and was stopped.
    public var timedOut: Bool

    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// A test's failure to prepare or run something (a tool that failed, a fixture that could not be made).
public struct ToolError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Runs the tools tests lean on (ffmpeg, ffprobe, gst-launch-1.0, the built `rtenc`), always with a deadline:
/// past it the process gets SIGTERM, then SIGKILL a second later. Both pipes are drained while it runs, so a chatty
/// child never blocks on a full pipe.
public enum Tool {
    public static func run(
        _ executable: String, _ arguments: [String], timeout: TimeInterval = 60, stdin: Data? = nil,
        currentDirectory: URL? = nil, environment: [String: String]? = nil
    ) throws -> ProcessResult {
        let process = BackgroundProcess.Started(try BackgroundProcess.launch(
            executable, arguments, stdin: stdin, currentDirectory: currentDirectory, environment: environment))
        return process.finish(within: timeout, signal: SIGTERM)
    }

    /// Standard output of a run that must succeed: in time and with status 0, else a `ToolError` carrying the tail
    /// of its standard error.
    public static func output(
        _ executable: String, _ arguments: [String], timeout: TimeInterval = 60, stdin: Data? = nil
    ) throws -> Data {
        let result = try run(executable, arguments, timeout: timeout, stdin: stdin)
        guard !result.timedOut else {
            throw ToolError("\(executable) ran over \(timeout) s and was stopped")
        }
        guard result.status == 0 else {
            throw ToolError("\(executable) \(arguments.joined(separator: " ")) exited \(result.status): "
                + String(result.stderrText.suffix(800)))
        }
        return result.stdout
    }

    /// The full path of `name` on PATH (an absolute path is returned as it is).
    public static func which(_ name: String) throws -> String {
        if name.hasPrefix("/") { return name }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw ToolError("\(name) not found on PATH")
    }
}

/// A fresh directory under the system's temporary directory; the test removes it (`defer`).
public func makeTemporaryDirectory(prefix: String = "rtenc-test") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
