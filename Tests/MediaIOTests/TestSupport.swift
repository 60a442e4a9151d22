import Foundation
import EncoderSession
@testable import MediaIO

/// A fresh directory under the system temp directory, removed when the test's closure returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("mediaio-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

struct ToolFailure: Error, CustomStringConvertible {
    var description: String
}

/// Runs a tool (ffmpeg, ffprobe) with a time bound; kills it if it overruns. Returns stdout; throws on failure.
@discardableResult
func runTool(_ name: String, _ arguments: [String], timeout: TimeInterval = 30) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [name] + arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read stdout concurrently so a chatty tool cannot block on a full pipe.
    nonisolated(unsafe) var data = Data()
    let reader = Thread { data = output.fileHandleForReading.readDataToEndOfFile() }
    reader.start()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning {
        process.terminate()
        process.waitUntilExit()
        throw ToolFailure(description: "\(name) timed out after \(timeout) s")
    }
    process.waitUntilExit()
    while !reader.isFinished { usleep(1_000) }
    if process.terminationStatus != 0 {
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        throw ToolFailure(description: "\(name) \(arguments.joined(separator: " ")) failed: \(message.suffix(600))")
    }
    return data
}

extension PixelBuffer {
    /// The picture's bytes without stride padding, planes in order: the layout of ffmpeg's `-f rawvideo`.
    var packedBytes: [UInt8] {
        var result: [UInt8] = []
        for index in 0..<planes.count {
            let stride = planes[index].bytesPerRow
            let rowBytes = rowBytes(ofPlane: index)
            for row in 0..<rows(ofPlane: index) {
                result += planes[index].bytes[(row * stride)..<(row * stride + rowBytes)]
            }
        }
        return result
    }

    /// Address of a plane's storage, to prove a source wrote into the same memory again.
    func storageAddress(ofPlane index: Int) -> UnsafeRawPointer? {
        planes[index].bytes.withUnsafeBytes { $0.baseAddress }
    }
}
