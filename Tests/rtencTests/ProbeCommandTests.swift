import Foundation
import TestSupport
import Testing

@Suite struct ProbeCommandTests {
    /// There is no GPU on these machines: probe must still succeed and say why VA-API cannot be used.
    @Test func reportsWhyVAAPIIsUnusableAndListsSoftwareEncoders() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLIRunner.rtenc(["probe", "--dri-directory", dir.path])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("VA-API (hardware):\n  none usable: "))
        #expect(result.stdoutText.contains("libx264      available"))
    }

    @Test func aDeviceThatIsNotDRMIsExplained() throws {
        let result = try CLIRunner.rtenc(["probe", "--device", "/dev/null"])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("/dev/null: unusable: "))
    }
}
