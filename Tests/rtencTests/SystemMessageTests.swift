import Foundation
import TestSupport
import Testing

/// What the system refuses, said in words (issue 12): a port already in use names the option that picks another,
/// and a machine without a GPU driver says there is no VA-API device instead of FFmpeg's "Invalid argument".
@Suite struct SystemMessageTests {
    struct PortCase: CustomTestStringConvertible, Sendable {
        var command: [String]
        var option: String
        var testDescription: String { command[0] }
    }

    /// PORT is the port a test socket holds; FILE a small .h264; SDP a path in the test's directory.
    static let portCases: [PortCase] = [
        PortCase(command: ["stream", "--frames", "3", "--size", "160x120", "--local-port", "PORT", "--to", "127.0.0.1:9",
                           "--sdp", "SDP"], option: "--local-port"),
        PortCase(command: ["send", "FILE", "--local-port", "PORT", "--to", "127.0.0.1:9", "--sdp", "SDP"],
                 option: "--local-port"),
        PortCase(command: ["receive", "--port", "PORT", "--timeout", "1"], option: "--port"),
        PortCase(command: ["relay", "--listen", "PORT", "--to", "127.0.0.1:9", "--duration", "1"], option: "--listen"),
    ]

    @Test(arguments: portCases)
    func aPortInUseSaysSoAndNamesTheOption(_ testCase: PortCase) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.h264").path
        if testCase.command.contains("FILE") {
            let made = try CLIRunner.rtenc(["encode", "--frames", "3", "--size", "160x120", "-o", file, "--quiet"])
            try #require(made.status == 0, "\(made.stderrText)")
        }
        let held = try HeldUDPPort()
        defer { held.close() }
        let arguments = testCase.command.map {
            switch $0 {
            case "PORT": "\(held.port)"
            case "FILE": file
            case "SDP": dir.appendingPathComponent("s.sdp").path
            default: $0
            }
        }
        let result = try CLIRunner.rtenc(arguments, timeout: 30)
        #expect(result.status == 1, "\(result.stderrText)")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("rtenc: ") == true, "\(result.stderrText)")
        #expect(result.stderrText.contains(":\(held.port) failed: Address already in use"), "\(result.stderrText)")
        #expect(result.stderrText.contains("pick another port with \(testCase.option)"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("errno"), "\(result.stderrText)")
    }

    @Test(arguments: [["stream", "--frames", "3", "--sdp", "SDP"], ["encode", "--frames", "3", "-o", "OUT"]])
    func aMissingVADeviceSaysWhatIsMissing(_ command: [String]) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let arguments = command.map {
            $0 == "SDP" ? dir.appendingPathComponent("s.sdp").path : $0 == "OUT" ? dir.appendingPathComponent("o.h264").path : $0
        }
        let result = try CLIRunner.rtenc(arguments + ["--encoder", "vaapi", "--device", "/no-such-dri/renderD128"], timeout: 30)
        #expect(result.status == 1)
        #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
        #expect(result.stderrText.contains("no VA-API device (/no-such-dri does not exist)"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("Invalid argument"), "\(result.stderrText)")
    }

    /// The default render node on a machine without a GPU driver (these test machines): what `probe` says too.
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/dev/dri"), "this machine has /dev/dri"))
    func encoderVAAPIWithoutDevDriSaysThereIsNoDevice() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLIRunner.rtenc(["stream", "--frames", "3", "--encoder", "vaapi",
                                          "--sdp", dir.appendingPathComponent("s.sdp").path], timeout: 30)
        #expect(result.status == 1)
        #expect(result.stderrText.hasSuffix("no VA-API device (/dev/dri does not exist)\n"), "\(result.stderrText)")
        let probe = try CLIRunner.rtenc(["probe"], timeout: 30)
        #expect(probe.stdoutText.contains("/dev/dri does not exist"), "\(probe.stdoutText)")
    }
}

/// A UDP port bound on 0.0.0.0 by the test, as another program would hold it.
final class HeldUDPPort: @unchecked Sendable {
    let port: UInt16
    private var fd: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw ToolError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = INADDR_ANY
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw ToolError("bind: \(reason)")
        }
        fd = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}
