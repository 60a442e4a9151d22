// WebRTC SDP: the offer/answer parser (the text a WHEP player or WHIP server sends us), the WHEP answer built on what
// it parses, and the WHIP answer check. Seeds: Chromium 156's offers and aiortc's answers (Tests/WebRTCTests/Fixtures).
//
// Properties: what parses writes back to text that parses to the same description; an answer we build parses back
// to itself and names a payload type the offer has; nothing traps, and every refusal is a WebRTCError.
import FuzzSupport
import WebRTC

let local = WebRTCSDP.LocalParameters(
    iceUfrag: "fuzz", icePwd: "0123456789abcdefghijkl",
    fingerprint: .init(hashFunction: "sha-256", bytes: Array(repeating: 0xA5, count: 32)),
    candidates: [.init(address: "127.0.0.1", port: 8189)], ssrc: 1, cname: "fuzz", sessionID: 1)
let encodings: [WebRTCSDP.VideoEncoding] = [
    .h264(profile: .constrainedBaseline, level: .level3_1), .h264(profile: .main, level: .level4),
    .h264(profile: .high, level: .level3_1), .hevc(.init()),
]
let whipOffer = try! WHIPOffer(encoding: encodings[0], local: local)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebRTCSDP(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    let description: WebRTCSDP.Description
    do {
        description = try WebRTCSDP.Description(parsing: text)
    } catch {
        check([.malformed, .limitExceeded].contains(error.code), "the parser threw \(error)")
        return 0
    }
    let written = description.text
    // `a=rtcp-fb:*` is written out per payload type, so the text may outgrow the parser's bound.
    if written.utf8.count <= WebRTCSDP.Limits.maxBytes {
        check((try? WebRTCSDP.Description(parsing: written)) == description, "write → parse changed the description: \(written)")
    }

    let encoding = encodings[size % encodings.count]
    if let answer = try? WHEPAnswer(offer: description, encoding: encoding, local: local) {
        check((try? WebRTCSDP.Description(parsing: answer.text)) == answer.description, "our answer does not parse back")
        check(description.media.contains { $0.codec(payloadType: answer.video.payloadType) != nil },
              "answered payload type \(answer.video.payloadType) is not in the offer")
    }
    if let answer = try? WHIPAnswer(answer: description, offer: whipOffer) {
        check(answer.video.payloadType == whipOffer.payloadType, "accepted payload type \(answer.video.payloadType)")
    }
    return 0
}
