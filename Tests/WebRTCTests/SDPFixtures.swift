import Foundation
import WebRTC

/// The recorded SDP under Fixtures/ (scripts/capture-webrtc-sdp.sh), and hand-edited variants of it.
enum SDPFixtures {
    static let whepOffer = "chromium-156-whep-recvonly-h264.sdp"
    static let defaultOffer = "chromium-156-recvonly-default.sdp"
    static let sendonlyOffer = "chromium-156-sendonly-h264.sdp"
    static let aiortcAnswerToChromium = "aiortc-1.4.0-whip-answer-to-chromium-156.sdp"
    static let rtencWHIPOffer = "rtenc-whip-offer.sdp"
    static let aiortcAnswerToRtenc = "aiortc-1.4.0-whip-answer-to-rtenc.sdp"
    static let rtencWHEPAnswer = "rtenc-whep-answer-to-chromium-156.sdp"
    /// A real libwebrtc offer with H.265 (not recorded here: Chromium 156 on this machine has no HEVC decoder and
    /// offers none): audio + video sendrecv, BUNDLE 0 1, H265/90000 on payload type 49 with
    /// `level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST`, Windows-style host candidates (a browser with an HEVC
    /// decoder — Chrome on Windows, or a native libwebrtc build). Source: a public Dart `sdp_transform` example
    /// (`final sdpOffer = {...}`) in a GitHub repository, found in the code index by searching for `H265/90000` with
    /// `a=fingerprint` (index file id 31594943886; the index does not name the repository); the SDP copied verbatim,
    /// its `\r\n` escapes made CRLF.
    static let libwebrtcHEVCOffer = "libwebrtc-hevc-sendrecv-offer.sdp"
    /// GStreamer 1.22 webrtcbin's answer (scripts/whip-gstreamer-server.py) to `rtenc stream --whip --codec hevc
    /// --size 640x360` (H265/90000, Main, level 2.1: level-id 63), recorded from the StreamWHIPTests run.
    static let webrtcbinAnswerToRtencHEVC = "gstreamer-1.22-webrtcbin-whip-answer-to-rtenc-hevc.sdp"
    static let all = [whepOffer, defaultOffer, sendonlyOffer, aiortcAnswerToChromium, rtencWHIPOffer, aiortcAnswerToRtenc,
                      rtencWHEPAnswer, libwebrtcHEVCOffer, webrtcbinAnswerToRtencHEVC]

    static func text(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// Checks that `text` is the fixture `name`; RTENC_RECORD_FIXTURES=1 rewrites the fixture first (after a
    /// deliberate change of rtenc's output; scripts/capture-webrtc-sdp.sh then hands it to the peers again).
    static func expectFixture(_ name: String, equals text: String) throws -> Bool {
        if ProcessInfo.processInfo.environment["RTENC_RECORD_FIXTURES"] != nil {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
            try Data(text.utf8).write(to: url)
        }
        return try self.text(name) == text
    }

    /// `name`'s text with every line for which `drop` is true removed (CRLF kept).
    static func editing(_ name: String, drop: (Substring) -> Bool = { _ in false },
                        replace: [(String, String)] = []) throws -> String {
        var text = try self.text(name)
        for (old, new) in replace { text = text.replacingOccurrences(of: old, with: new) }
        return text.split(separator: "\r\n", omittingEmptySubsequences: false).filter { !drop($0) }.joined(separator: "\r\n")
    }

    /// Deterministic local values (the real ones are random).
    static let local = WebRTCSDP.LocalParameters(
        iceUfrag: "rtEn", icePwd: "abcdefghijklmnopqrstuv0123",
        fingerprint: .init(hashFunction: "sha-256", bytes: (0 ..< 32).map { UInt8($0 * 7 & 0xFF) }),
        candidates: [.init(address: "127.0.0.1", port: 8189), .init(address: "::1", port: 8189)],
        ssrc: 0x1234_5678, cname: "rtenc-cname", streamID: "rtenc", trackID: "video", sessionID: 4_242_424_242)
}
