import Foundation
import TestSupport
import Testing

/// `rtenc serve --cc rtenc`: rtenc's own controller per viewer, fed like the RTP path's (the viewer's sent packets
/// before each transport-cc report, its frames' sizes), its per-frame budgets reaching the one encoder (the lowest
/// among the viewers). The viewer is headless Chromium on the player page: the one player here that offers
/// transport-cc (aiortc offers REMB only, and so would never run a controller of its own).
extension ServeWHEPTests {
    /// The controller as the run's `--stats-json` lines saw it: the viewer's `cc`, and the encoder's `frames` counts.
    static func frameCounts(_ run: Run) -> [String: Any] { run.stats.last?["frames"] as? [String: Any] ?? [:] }

    /// UDP shaped to 600 kb/s under a 1500 kb/s noisy picture: the queue builds, rtenc's controller budgets or skips
    /// frames to drain it, and the encoder applies them (`frames.budgeted` or `frames.skipped_controller` above 0,
    /// frames encoded within their budget counted too); the picture keeps playing and the target follows the link.
    @Test(.enabled(if: Self.namespaceProblem == nil, Self.skipMessage), .timeLimit(.minutes(2)))
    func chromiumWithRtencsControllerGetsFrameBudgets() throws {
        let run = try Self.serve(viewers: "chromium", seconds: 14,
                                 options: ["--size", "640x360", "--bitrate", "1500k", "--cc", "rtenc", "testsrc:noise:barcode"],
                                 environment: ["UDP_RATE": "600kbit"])
        let page = try #require(run.viewers.first, "\(run.log)")
        let stats = try #require(page["stats"] as? [String: Any], "\(run.log)")
        #expect((stats["framesDecoded"] as? Int ?? 0) >= 30, "the picture kept coming: \(run.log)")
        let seen = Self.timeline(run)
        #expect(seen.contains { $0.viewer["cc"] as? String == "rtenc" }, "the viewer negotiated transport-cc and runs rtenc's controller: \(run.log)")
        let frames = Self.frameCounts(run)
        let budgeted = frames["budgeted"] as? Int ?? 0
        let skipped = frames["skipped_controller"] as? Int ?? 0
        #expect(budgeted + skipped > 0, "the controller's budgets reached the encoder: \(frames) \(run.log)")
        #expect((frames["budget_overruns"] as? Int ?? .max) <= budgeted, "\(frames)")
        // Its rate saws around the link (measured: 510–685 kb/s from a few seconds in), far from the 1500 kb/s ceiling.
        let late = seen.filter { $0.time >= 8 }
        #expect(!late.isEmpty && late.allSatisfy { $0.target < 800 }, "the target follows the 600 kb/s link: \(run.log)")
    }
}
