import Foundation
import TestSupport
import EncoderSession
@testable import MediaIO

/// A fresh directory under the system temp directory, removed when the test's closure returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = try makeTemporaryDirectory(prefix: "mediaio")
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

/// Runs a tool (ffmpeg, ffprobe) with a time bound; returns its stdout, throws `ToolError` on failure or overrun.
@discardableResult
func runTool(_ name: String, _ arguments: [String], timeout: TimeInterval = 30) throws -> Data {
    try Tool.output(name, arguments, timeout: timeout)
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
