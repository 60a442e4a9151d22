// RTP parse (RFC 3550 §5.1) and the RFC 6184 payload parse, the whole input as one datagram.
//
// Properties: a parsed packet marshals to marshalSize bytes that parse back to the same packet; a parsed H.264
// payload's NAL units lie inside the payload and are non-empty.
import FuzzSupport
import RTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTPPacket(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let packet = try? RTPPacket(parsing: bytes[...]) else {
        // The payload parser also sees raw input, as it would behind a lenient RTP layer.
        exercisePayload(bytes[...])
        return 0
    }
    check(packet.marshalSize <= bytes.count, "marshalSize \(packet.marshalSize) exceeds the \(bytes.count) bytes parsed")
    guard let marshalled = try? packet.marshal() else {
        check(false, "a parsed packet does not marshal")
        return 0
    }
    check(marshalled.count == packet.marshalSize, "marshal wrote other than marshalSize bytes")
    check((try? RTPPacket(parsing: marshalled[...])) == packet, "parse → marshal → parse changed the packet")
    exercisePayload(packet.payload)
    return 0
}

func exercisePayload(_ payload: ArraySlice<UInt8>) {
    guard let parsed = try? H264Payload(parsing: payload) else { return }
    switch parsed {
    case .single(let unit):
        check(!unit.isEmpty && unit.count == payload.count, "single NAL unit of \(unit.count) bytes")
    case .aggregate(let units):
        check(!units.isEmpty && units.allSatisfy { !$0.isEmpty }, "STAP-A with an empty unit")
        check(units.reduce(0) { $0 + 2 + $1.count } == payload.count - 1, "STAP-A units do not fill the payload")
    case .fragment(let header, let start, let end, let data):
        check(!(start && end), "FU-A with S and E")
        check(header & 0x1F != 0 && header & 0x1F < 24, "FU-A rebuilt header type \(header & 0x1F)")
        check(data.count == payload.count - 2, "FU-A data of \(data.count) bytes in a \(payload.count)-byte payload")
    }
}
