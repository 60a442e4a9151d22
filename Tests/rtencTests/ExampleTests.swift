import Foundation
import TestSupport
import Testing

/// The README's complete example: its code block is the compiled file, and the program streams to a real receiver.
@Suite(.serialized) struct ExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let examplePath = "Examples/StreamToPeer/main.swift"

    /// The code block after `<!-- example: PATH -->` in README.md.
    static func readmeBlock(after marker: String) throws -> String {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: marker), "README has no \(marker)")
        let open = try #require(readme.range(of: "```swift\n", range: start.upperBound ..< readme.endIndex))
        let close = try #require(readme.range(of: "\n```\n", range: open.upperBound ..< readme.endIndex))
        return String(readme[open.upperBound ..< close.lowerBound]) + "\n"
    }

    @Test func readmeQuotesTheCompiledWHEPExample() throws {
        let path = "Examples/ServeWHEP/main.swift"
        let file = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        let block = try Self.readmeBlock(after: "<!-- example: \(path) -->")
        #expect(block == file, "README's example differs from \(path): copy the file into the block")
    }

    @Test func readmeQuotesTheCompiledEditWhilePlayingExample() throws {
        let path = "Tests/CompositionTests/EditWhilePlayingExample.swift"
        let file = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        let block = try Self.readmeBlock(after: "<!-- example: \(path) -->")
        #expect(block == file, "README's example differs from \(path): copy the file into the block")
    }

    @Test func readmeQuotesTheCompiledExample() throws {
        let file = try String(contentsOf: Self.root.appendingPathComponent(Self.examplePath), encoding: .utf8)
        let block = try Self.readmeBlock(after: "<!-- example: \(Self.examplePath) -->")
        #expect(block == file, "README's example differs from \(Self.examplePath): copy the file into the block")
    }

    /// ~3 s of the example to `rtenc receive --decode`: every frame arrives and decodes, the SDP file is whole.
    @Test func exampleStreamsFramesRtencReceiveDecodes() throws {
        let example = URL(fileURLWithPath: CLIRunner.rtencPath).deletingLastPathComponent()
            .appendingPathComponent("StreamToPeer").path
        try #require(FileManager.default.isExecutableFile(atPath: example), "build the package first: \(example)")
        let port = TestPorts.next()
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--decode", "--timeout", "20", "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sdp = dir.appendingPathComponent("example.sdp").path
        let sent = try CLIRunner.run(example, ["\(port)", sdp, "3"], timeout: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        #expect(sent.stdoutText.contains("SDP in \(sdp)"))
        // The receiver stops by itself on the sender's RTCP BYE.
        let received = receiver.finish(within: 5)
        #expect(!received.timedOut, "receive did not stop at BYE")
        let report = try #require(try JSONSerialization.jsonObject(with: received.stdout) as? [String: Any],
                                  "\(received.stderrText)")
        let frames = try #require(report["frames"] as? Int)
        #expect(frames >= 85 && frames <= 90, "3 s at 30 fps, late frames skipped under load: \(frames)")
        #expect(report["decoded_frames"] as? Int == frames)
        #expect(report["decode_errors"] as? Int == 0, "\(report["last_decode_error"] ?? "")")
        #expect(report["width"] as? Int == 640 && report["height"] as? Int == 360)
        #expect(report["bye_received"] as? Bool == true)
        let text = try String(contentsOfFile: sdp, encoding: .utf8)
        #expect(text.contains("m=video \(port) RTP/AVP 96") && text.contains("sprop-parameter-sets="))
        #expect(!FileManager.default.fileExists(atPath: sdp + ".partial"))
    }

    @Test func exampleRefusesABadPort() throws {
        let example = URL(fileURLWithPath: CLIRunner.rtencPath).deletingLastPathComponent()
            .appendingPathComponent("StreamToPeer").path
        let result = try CLIRunner.run(example, ["not-a-port"], timeout: 10)
        #expect(result.status == 2)
        #expect(result.stderrText.hasPrefix("StreamToPeer: usage:"))
    }
}
