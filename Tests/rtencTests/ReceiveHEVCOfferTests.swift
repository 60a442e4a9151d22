import Foundation
import Testing

/// `rtenc receive --sdp` given an HEVC offer: RTPOut reads RFC 7798 SDP, but the receiver decodes H.264 only so far,
/// so it must say so in one line (status 1) instead of reading HEVC packets as H.264; a DONL offer is refused with
/// the reason.
struct ReceiveHEVCOfferTests {
    static func sdp(fmtp: String) -> String {
        ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=peer", "c=IN IP4 127.0.0.1", "t=0 0", "m=video 5004 RTP/AVP 96",
         "a=rtpmap:96 H265/90000", "a=fmtp:96 \(fmtp)"].joined(separator: "\r\n") + "\r\n"
    }

    @Test(arguments: [
        ("profile-id=1;sprop-vps=QAEMAf//AWAAAAMAkAAAAwAAAwA8ugJA", ["offers hevc", "does not decode yet"]),
        ("sprop-max-don-diff=2", ["not a usable SDP", "sprop-max-don-diff=2", "DONL"]),
    ])
    func refusedInOneLine(fmtp: String, says: [String]) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.sdp(fmtp: fmtp).write(to: dir.appendingPathComponent("hevc.sdp"), atomically: true, encoding: .utf8)
        let result = try CLIRunner.rtenc(["receive", "--sdp", "hevc.sdp", "--timeout", "1"], timeout: 30, currentDirectory: dir)
        #expect(result.status == 1 && !result.terminatedBySignal, "\(result.stderrText)")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("rtenc: receive: ") == true, "\(result.stderrText)")
        for words in says { #expect(lines.first?.contains(words) == true, "missing \"\(words)\" in \(result.stderrText)") }
    }
}
