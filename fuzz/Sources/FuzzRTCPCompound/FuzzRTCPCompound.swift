// RTCP compound parse (RFC 3550 §6.1; transport-cc and RFC 8888 feedback included, seeded by `transport-cc*` and
// `ccfb` from CongestionFeedbackWireTests) and what the two RTCP sessions do with a datagram from the peer, the whole
// input as one datagram. The sessions' SSRC is the one the seeds (the RTCPTests byte vectors) address, so feedback
// for "us" is reachable.
//
// Properties: parsed packets marshal to marshalSize bytes that parse back to the same packets; a datagram the
// parser refuses the sessions refuse too, and change nothing.
import FuzzSupport
import RTP

let ourSSRC: UInt32 = 0x1234_5678
/// Fixed times: the sessions read no clock, so a run is reproducible.
let now = RTPInstant(nanosecondsSinceEpoch: 1_700_000_000_000_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTCPCompound(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    var sender = RTCPSenderSession(configuration: .init(ssrc: ourSSRC, cname: "fuzz"))
    var receiver = RTCPReceiverSession(configuration: .init(ssrc: 0x0BAD_CAFE, cname: "fuzz"))
    // The receiver takes sender reports only from the source it receives media from.
    receiver.rtpReceived(.init(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: ourSSRC), arrival: now)
    guard let packets = try? RTCPCompound.parse(bytes[...]) else {
        check((try? sender.receive(bytes[...], now: now)) == nil, "the sender session accepted what parse refused")
        check((try? receiver.receive(bytes[...], now: now)) == nil, "the receiver session accepted what parse refused")
        return 0
    }
    check(!packets.isEmpty && packets.count <= RTCPCompound.maxPacketsPerCompound, "\(packets.count) packets")
    // Twice: the second time the keyframe-request throttle and FIR sequence memory are in play.
    for time in [now, now + .milliseconds(10)] {
        let actions = (try? sender.receive(bytes[...], now: time)) ?? []
        for case .reply(let reply) in actions {
            check((try? RTCPCompound.parse(reply[...])) != nil, "the sender's TMMBN reply does not parse")
        }
        _ = try? receiver.receive(bytes[...], now: time)
    }
    _ = sender.peer
    _ = receiver.makeReportIfDue(now: now + .seconds(2))

    // Marshalling may refuse what the wire allowed, and need not give back the same bytes: a TMMBR/REMB bitrate
    // past 64 bits is saturated by the parser and rounded down by the writer. But one round normalises: what we
    // wrote must read back and write again byte for byte.
    guard let marshalled = try? RTCPCompound.marshal(packets) else { return 0 }
    check(marshalled.count == RTCPCompound.marshalSize(packets), "marshal wrote other than marshalSize bytes")
    guard let reparsed = try? RTCPCompound.parse(marshalled[...]) else {
        check(false, "our own marshalled packets do not parse: \(packets)")
        return 0
    }
    check(reparsed.count == packets.count, "\(packets.count) packets marshalled, \(reparsed.count) read back")
    check((try? RTCPCompound.marshal(reparsed)) == marshalled, "marshal → parse → marshal changed the bytes: \(packets)")
    return 0
}
