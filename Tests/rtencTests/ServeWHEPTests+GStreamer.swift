import Foundation
import TestSupport
import Testing

/// `rtenc serve` to GStreamer's webrtcbin (gstreamer1.0-plugins-bad 1.22 with libnice, scripts/whep-gstreamer-client.py):
/// the one WebRTC peer on this machine that decodes H.265 (Chromium 156 here has no HEVC decoder and offers none).
/// It offers one recvonly transceiver, POSTs, depayloads with rtph265depay (or rtph264depay) and decodes with
/// avdec_h265 (avdec_h264), reading the clock barcode from every picture. In the suite's serialized order, inside a
/// network namespace of its own like the others (scripts/whep-serve-check.sh).
extension ServeWHEPTests {
    /// webrtcbin, libnice's GStreamer plugin and the Python bindings are installed (scripts/deps.sh).
    static let gstreamerProblem: String? = {
        if let problem = namespaceProblem { return problem }
        let probe = try? Tool.run("/usr/bin/python3", ["-c", """
            import gi; gi.require_version('Gst', '1.0'); gi.require_version('GstWebRTC', '1.0'); gi.require_version('Nice', '0.1')
            from gi.repository import Gst, GstWebRTC, Nice; Gst.init(None)
            assert all(Gst.ElementFactory.find(n) for n in ('webrtcbin', 'nicesrc', 'rtph265depay', 'avdec_h265', 'avdec_h264'))
            """], timeout: 30)
        guard let probe, probe.status == 0 else {
            return "GStreamer webrtcbin with libnice and python3-gi is missing (gstreamer1.0-nice, gir1.2-gst-plugins-bad-1.0, gir1.2-nice-0.1)"
        }
        return nil
    }()

    static let gstreamerSkip: Comment = "skipped: needs unshare --net, GStreamer webrtcbin with libnice and python3-gi (scripts/deps.sh); the reason found here: \(gstreamerProblem ?? "none")"

    /// The acceptance run: H.265 to webrtcbin, ≥ 60 frames decoded in 10 s, the answer's H265 fmtp from the offer
    /// with our level, every picture's barcode read in order, the viewer's first picture an IRAP forced for it.
    @Test(.enabled(if: Self.gstreamerProblem == nil, Self.gstreamerSkip), .timeLimit(.minutes(2)))
    func gstreamerDecodesH265() throws {
        let run = try Self.serve(viewers: "gstreamer-h265", seconds: 10,
                                 options: ["--codec", "hevc", "--size", "640x360", "testsrc:barcode"])
        let player = try #require(run.viewers.first, "\(run.log)")
        #expect(player["status"] as? Int == 201, "\(run.log)")
        #expect(player["codec"] as? String == "H265" && player["decoder"] as? String == "avdec_h265", "\(run.log)")
        let fmtp = player["answered_fmtp"] as? String ?? ""
        #expect(fmtp.contains("profile-id=1") && fmtp.contains("tier-flag=0") && fmtp.contains("level-id="), "\(run.log)")
        #expect((player["frames"] as? Int ?? 0) >= 60, "\(run.log)")
        #expect((player["codes_read"] as? Int ?? 0) >= 60, "the barcode read from the decoded pictures: \(run.log)")
        #expect(player["monotonic"] as? Bool == true, "\(run.log)")
        #expect(player["size"] as? [Int] == [640, 360], "\(run.log)")
        #expect((player["errors"] as? [Any])?.isEmpty == true, "no GStreamer errors: \(run.log)")
        #expect(player["delete_status"] as? Int == 200, "DELETE ends the viewer: \(run.log)")
        let viewers = run.stats.flatMap { $0["viewers"] as? [[String: Any]] ?? [] }
        #expect(viewers.contains { $0["state"] as? String == "connected" && ($0["keyframes"] as? Int ?? 0) >= 1 }, "\(run.log)")
    }

    /// The same player with H.264: proves the client itself (webrtcbin, libnice on loopback, DTLS as the server).
    @Test(.enabled(if: Self.gstreamerProblem == nil, Self.gstreamerSkip), .timeLimit(.minutes(2)))
    func gstreamerDecodesH264() throws {
        let run = try Self.serve(viewers: "gstreamer-h264", seconds: 6, options: ["--size", "480x272", "testsrc:barcode"])
        let player = try #require(run.viewers.first, "\(run.log)")
        #expect(player["status"] as? Int == 201, "\(run.log)")
        #expect(player["decoder"] as? String == "avdec_h264", "\(run.log)")
        #expect((player["frames"] as? Int ?? 0) >= 30, "\(run.log)")
        #expect(player["monotonic"] as? Bool == true && (player["codes_read"] as? Int ?? 0) >= 30, "\(run.log)")
    }
}
