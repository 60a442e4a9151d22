// The RFC 6184 and RFC 7798 depacketizers (one generic type, with its reorder buffer) and the receiver's reception
// statistics, fed a packet sequence
// decoded from the input. Headers are built, not parsed (FuzzRTPPacket covers parsing), so mutations go into what
// the depacketizer decides on: sequence numbers, timestamps, markers, arrival times and payloads.
//
// Input layout:
//   byte 0         reorder window - 1 (low 6 bits); bit 6: a max reorder delay of 50 ms; bit 7: HEVC (RFC 7798)
//                  instead of H.264
//   then, per packet:
//     control      bit 0 marker; bits 1-2 sequence step: +1, +int8 (1 byte follows), +0 (duplicate),
//                  absolute (2 bytes follow); bits 3-4 timestamp: same, +3000, -3000, absolute (4 bytes follow);
//                  bit 5: arrival advances by the next byte in ms; bit 6: call expire() after the push
//     length       payload bytes that follow (fewer at the end of the input)
//     payload
//
// Properties: every delivered access unit is non-empty, within the depacketizer's bounds and made of non-empty NAL
// units; counters match the events; the receiver's report block parses.
import FuzzSupport
import RTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDepacketizer(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    var input = FuzzInput(fuzzBytes(data, size)[...])
    let setup = input.byte()
    if setup & 0x80 != 0 {
        run(H265PayloadFormat.self, setup: setup, input: &input)
    } else {
        run(H264PayloadFormat.self, setup: setup, input: &input)
    }
    return 0
}

private func run<Format: RTPPayloadFormat>(_ format: Format.Type, setup: UInt8, input: inout FuzzInput) {
    typealias Depacketizer = AccessUnitDepacketizer<Format>
    let window = Int(setup & 0x3F) + 1
    var depacketizer = Depacketizer(reorderWindow: window, maxReorderDelay: setup & 0x40 != 0 ? .milliseconds(50) : nil)
    var receiver = RTCPReceiverSession(configuration: .init(ssrc: 1, cname: "fuzz"))

    var sequenceNumber: UInt16 = 0xFFF0  // near the wrap, so wrap-around is in every run
    var timestamp: UInt32 = 0xFFFF_0000
    var arrival = RTPInstant(nanosecondsSinceEpoch: 1_700_000_000_000_000_000)
    var delivered = 0, dropped = 0

    func observe(_ event: DepacketizerEvent) {
        switch event {
        case .accessUnit(let unit):
            delivered += 1
            check(!unit.nalUnits.isEmpty, "empty access unit delivered")
            check(unit.nalUnits.count <= Depacketizer.maxNALUnitsPerAccessUnit, "\(unit.nalUnits.count) NAL units")
            check(unit.nalUnits.allSatisfy { !$0.isEmpty }, "empty NAL unit delivered")
            let bytes = unit.nalUnits.reduce(0) { $0 + $1.count }
            check(bytes <= Depacketizer.maxAccessUnitBytes, "access unit of \(bytes) bytes")
            check(unit.annexB.count == bytes + 4 * unit.nalUnits.count, "annexB size")
            check(unit.codec == Format.codec, "access unit of \(unit.codec) from the \(Format.codec) depacketizer")
            _ = unit.isKeyframe
        case .packetsLost(let lost):
            check(lost.count <= window, "\(lost.count) lost packets reported with a window of \(window)")
        case .accessUnitDropped:
            dropped += 1
        case .malformedPayload:
            break
        }
    }

    while !input.isEmpty {
        let control = input.byte()
        switch control >> 1 & 3 {
        case 0: sequenceNumber &+= 1
        case 1: sequenceNumber = UInt16(bitPattern: Int16(bitPattern: sequenceNumber) &+ Int16(Int8(bitPattern: input.byte())))
        case 2: break
        default: sequenceNumber = input.uint16()
        }
        switch control >> 3 & 3 {
        case 0: break
        case 1: timestamp &+= 3000
        case 2: timestamp &-= 3000
        default: timestamp = input.uint32()
        }
        if control & 0x20 != 0 { arrival = arrival + .milliseconds(Int(input.byte())) }
        let payload = input.take(Int(input.byte()))
        let header = RTPHeader(
            marker: control & 1 != 0, payloadType: 96, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: 1)
        receiver.rtpReceived(header, arrival: arrival)
        depacketizer.push(RTPPacket(header: header, payload: payload), arrival: arrival, events: observe)
        if control & 0x40 != 0 { depacketizer.expire(now: arrival, events: observe) }
    }
    depacketizer.flush(events: observe)

    check(depacketizer.accessUnitsDelivered == delivered, "accessUnitsDelivered \(depacketizer.accessUnitsDelivered) ≠ \(delivered)")
    check(depacketizer.accessUnitsDropped == dropped, "accessUnitsDropped \(depacketizer.accessUnitsDropped) ≠ \(dropped)")
    if let report = receiver.makeReportIfDue(now: arrival + .seconds(2)) {
        check((try? RTCPCompound.parse(report[...])) != nil, "the receiver's report does not parse")
    }
}
