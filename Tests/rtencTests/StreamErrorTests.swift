import Foundation
import TestSupport
import Testing

/// Every way `rtenc stream` can be started wrong ends in one line and a status, with no SDP left behind.
@Suite struct StreamErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var status: Int32
        var says: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "unknown input file", arguments: ["missing.mp4"], status: 1, says: "No such file"),
        Case(name: "corrupt input file", arguments: ["GARBAGE"], status: 1, says: "Invalid data"),
        Case(name: "host that does not resolve", arguments: ["--to", "no-such-host.invalid:5004"], status: 1,
             says: "cannot resolve host no-such-host.invalid"),
        Case(name: "impossible size/level", arguments: ["--size", "1920x1080", "--level", "3"], status: 1,
             says: "the lowest level that can is 4"),
        Case(name: "unusable VA device", arguments: ["--encoder", "vaapi", "--device", "/dev/null"], status: 1,
             says: "VA-API unavailable"),
        Case(name: "MTU below 100", arguments: ["--mtu", "99"], status: 64, says: "--mtu"),
        Case(name: "bad bit rate", arguments: ["--bitrate", "fast"], status: 64, says: "--bitrate"),
        Case(name: "bad destination", arguments: ["--to", "127.0.0.1"], status: 64, says: "--to"),
        Case(name: "payload type outside the dynamic range", arguments: ["--payload-type", "34"], status: 64,
             says: "--payload-type"),
        Case(name: "zero duration", arguments: ["--duration", "0"], status: 64, says: "--duration"),
        Case(name: "unknown aggregation", arguments: ["--aggregation", "some"], status: 64, says: "--aggregation"),
        // RFC 7798 has no packetization modes: H.264's single NAL unit mode cannot be honoured for HEVC.
        Case(name: "hevc in single NAL unit mode", arguments: ["--codec", "hevc", "--mode", "0"], status: 1,
             says: "--mode 0 is RFC 6184's packetization-mode for H.264; HEVC (RFC 7798) has none"),
    ]

    @Test(arguments: cases)
    func failsInOneLine(_ testCase: Case) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let garbage = dir.appendingPathComponent("garbage.mp4")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: garbage)
        let sdp = dir.appendingPathComponent("s.sdp").path
        let arguments = testCase.arguments.map { $0 == "GARBAGE" ? garbage.path : $0 }
        let result = try CLIRunner.rtenc(["stream", "--frames", "3", "--sdp", sdp] + arguments, timeout: 30)
        #expect(result.status == testCase.status, "\(result.stderrText)")
        #expect(!result.terminatedBySignal)
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderrText)")
        #expect(lines.first?.hasPrefix("rtenc: ") == true)
        #expect(result.stderrText.contains(testCase.says), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: sdp))
    }

    /// A peer that is not listening is not an error: the stream runs to its end and warns once.
    @Test func aPeerThatIsNotListeningOnlyWarnsOnce() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next()
        let result = try CLIRunner.rtenc([
            "stream", "--frames", "45", "--size", "320x240", "--to", "127.0.0.1:\(port)",
            "--sdp", dir.appendingPathComponent("s.sdp").path,
        ], timeout: 30)
        #expect(result.status == 0, "\(result.stderrText)")
        let warnings = result.stderrText.split(separator: "\n").filter { $0.contains("not listening") }
        #expect(warnings.count == 1, "\(result.stderrText)")
    }
}
