import Foundation
@testable import RTP
@testable import RTPOut

/// A peer program (ffmpeg, gst-launch) running for the length of one test, its output going to a file so a full pipe
/// never blocks it. `stop()` interrupts it (SIGINT: both tools finish cleanly), then kills it after `grace` seconds.
final class PeerProcess {
    let process = Process()
    let outputURL: URL
    let errorURL: URL

    init(_ path: String, _ arguments: [String], outputIn directory: URL, name: String) throws {
        outputURL = directory.appendingPathComponent("\(name).out")
        errorURL = directory.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Waits for the process to exit on its own, at most `timeout` seconds; kills it after that.
    @discardableResult
    func wait(timeout: Double) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { stop() }
        return process.terminationStatus
    }

    func stop(grace: Double = 3) {
        guard process.isRunning else { return }
        process.interrupt()
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Standard output and standard error, kept apart (ffmpeg's progress lines would split framecrc lines).
    var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }

    deinit { stop(grace: 0.5) }
}

enum Ports {
    /// An even port P with P and P+1 free for UDP on 127.0.0.1, chosen at random in the high range.
    static func freePair() throws -> UInt16 {
        for _ in 0 ..< 100 {
            let port = UInt16.random(in: 20000 ... 60000) & ~1
            if isFree(port) && isFree(port + 1) { return port }
        }
        throw FixtureError(message: "no free port pair")
    }

    static func isFree(_ port: UInt16) -> Bool {
        guard let address = try? SocketAddress(host: "127.0.0.1", port: port) else { return false }
        return (try? UDPSocket(bindTo: address)) != nil
    }

    /// Waits until some process has bound `port` (our own bind fails), up to `timeout` seconds.
    static func waitUntilBound(_ port: UInt16, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !isFree(port) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }
}

/// Sends `accessUnits` through `sender` at `fps` in real time, with the first one at once.
func sendInRealTime(_ accessUnits: [[ArraySlice<UInt8>]], through sender: RTPSender, fps: Double = 30) throws {
    let start = Date()
    for (i, au) in accessUnits.enumerated() {
        let due = start.addingTimeInterval(Double(i) / fps)
        let wait = due.timeIntervalSinceNow
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        try sender.send(accessUnit: au, pts: Int64(i), timeBase: (1, Int64(fps)))
    }
}
