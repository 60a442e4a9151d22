import Foundation

/// A process started in the background (a receiver, a sender) and stopped by the test: it ends by itself, or gets
/// `signal` (SIGTERM or SIGINT) and SIGKILL a second later; it is killed at `deadline` if the test never stops it.
public final class BackgroundProcess: @unchecked Sendable {
    private let started: Started

    public init(_ executable: String, _ arguments: [String], deadline: TimeInterval, currentDirectory: URL? = nil) throws {
        started = Started(try Self.launch(executable, arguments, stdin: nil, currentDirectory: currentDirectory))
        let process = started.process
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline) {
            if process.isRunning { kill(pid, SIGKILL) }
        }
    }

    public var isRunning: Bool { started.process.isRunning }

    /// The process id (for sampling its memory: `ProcessMemory`).
    public var processIdentifier: Int32 { started.process.processIdentifier }

    /// Waits up to `timeout` for the process to end by itself, then stops it with `signal`.
    public func finish(within timeout: TimeInterval, signal: Int32 = SIGTERM) -> ProcessResult {
        started.finish(within: timeout, signal: signal)
    }

    deinit {
        if started.process.isRunning { kill(started.process.processIdentifier, SIGKILL) }
    }

    /// A launched process with its two pipes being drained.
    final class Started: @unchecked Sendable {
        let process: Process
        private let lock = NSLock()
        private var out = Data()
        private var err = Data()
        private let drained = DispatchGroup()

        init(_ launched: (Process, Pipe, Pipe)) {
            process = launched.0
            for (pipe, isOut) in [(launched.1, true), (launched.2, false)] {
                drained.enter()
                DispatchQueue.global().async { [self] in
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    lock.withLock { if isOut { out = data } else { err = data } }
                    drained.leave()
                }
            }
        }

        func finish(within timeout: TimeInterval, signal: Int32) -> ProcessResult {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            var timedOut = false
            if process.isRunning {
                timedOut = true
                kill(process.processIdentifier, signal)
                let killAt = Date().addingTimeInterval(1)
                while process.isRunning && Date() < killAt { usleep(10_000) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            process.waitUntilExit()
            drained.wait()
            return lock.withLock {
                ProcessResult(status: process.terminationStatus,
                              terminatedBySignal: process.terminationReason == .uncaughtSignal,
                              stdout: out, stderr: err, timedOut: timedOut)
            }
        }
    }

    static func launch(_ executable: String, _ arguments: [String], stdin: Data?, currentDirectory: URL?,
                       environment: [String: String]? = nil) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Tool.which(executable))
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        if let environment { process.environment = environment }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        let inPipe = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : inPipe
        try process.run()
        if let stdin {
            DispatchQueue.global().async {
                try? inPipe.fileHandleForWriting.write(contentsOf: stdin)
                try? inPipe.fileHandleForWriting.close()
            }
        }
        return (process, outPipe, errPipe)
    }
}
