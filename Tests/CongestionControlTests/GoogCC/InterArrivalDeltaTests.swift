import CongestionControl
import MediaCore
import Testing

/// Hand-made packet series through `InterArrivalDelta`: each packet (send ms, arrival ms, bytes) and the deltas it
/// must produce (send ms, arrival ms, size delta), nil when none. The feedback's processing time is send + 200 ms
/// unless a case says otherwise. Rules from libwebrtc's inter_arrival_delta.cc.
@Suite struct InterArrivalDeltaTests {
    struct Packet: Sendable {
        var send: Int64
        var arrival: Int64
        var size = 1000
        var expected: (send: Int64, arrival: Int64, size: Int)?
        var system: Int64? = nil
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let packets: [Packet]
        var testDescription: String { name }
    }

    static func p(_ send: Int64, _ arrival: Int64, _ expected: (Int64, Int64, Int)? = nil, size: Int = 1000) -> Packet {
        Packet(send: send, arrival: arrival, size: size, expected: expected.map { (send: $0.0, arrival: $0.1, size: $0.2) })
    }

    static let cases: [Case] = [
        Case(name: "one packet per group, 20 ms apart: deltas once two groups are complete", packets: [
            p(0, 100), p(20, 120), p(40, 140, (20, 20, 0)), p(60, 165, (20, 20, 0)), p(80, 190, (20, 25, 0)),
        ]),
        Case(name: "a packet arriving within 5 ms of the last and earlier than its spacing joins that group", packets: [
            p(0, 100), p(20, 120), p(40, 140, (20, 20, 0)), p(60, 144), p(80, 170, (40, 24, 1000)),
        ]),
        Case(name: "packets sent within 5 ms of the first form one group", packets: [
            p(0, 100), p(3, 103), p(5, 105), p(20, 125), p(40, 145, (15, 20, -2000)),
        ]),
        Case(name: "a packet exactly 5 ms after the first still belongs to its group", packets: [
            p(0, 100), p(5, 105), p(20, 120), p(40, 140, (15, 15, -1000)),
        ]),
        Case(name: "burst pre-filter: arrivals within 5 ms, earlier than their send spacing, join the group", packets: [
            p(0, 100), p(10, 102), p(20, 104), p(40, 140), p(60, 160, (20, 36, -2000)),
        ]),
        Case(name: "a burst stops at 100 ms from the group's first arrival", packets: [
            // Each packet arrives 4 ms after the previous though sent 10 ms later: a burst, until 100 ms.
            p(0, 100), p(10, 104), p(20, 108), p(30, 112), p(40, 116), p(50, 120), p(60, 124), p(70, 128),
            p(80, 132), p(90, 136), p(100, 140), p(110, 144), p(120, 148), p(130, 152), p(140, 156), p(150, 160),
            p(160, 164), p(170, 168), p(180, 172), p(190, 176), p(200, 180), p(210, 184), p(220, 188), p(230, 192),
            p(240, 196), p(250, 200),
            p(260, 204), p(270, 230, (20, 8, -23000)),
        ]),
        Case(name: "a packet sent before its group's first is reordered and ignored", packets: [
            p(0, 100), p(20, 120), p(10, 125), p(40, 140, (20, 20, 0)),
        ]),
        Case(name: "three groups in a row arriving backwards reset the state", packets: [
            // The packet sent at 40 ms arrives before everything else: the burst rule puts it in the group sent at
            // 20 ms, whose completion time becomes 95 ms, 5 ms before the previous group's. Each later packet (more
            // than 5 ms after it, so no burst) finds that backwards delta, and the third resets.
            p(0, 100), p(20, 120), p(40, 95), p(60, 150), p(80, 160), p(100, 170),
            p(120, 200), p(140, 220), p(160, 240, (20, 20, 0)),
        ]),
        Case(name: "an arrival clock 3 s ahead of the sender's resets the state", packets: [
            p(0, 100), p(20, 120), p(40, 5140, (20, 20, 0)), p(60, 5160), p(80, 5180), p(100, 5200),
            p(120, 5220, (20, 20, 0)),
        ]),
    ]

    @Test(arguments: cases)
    func series(_ test: Case) {
        var interArrival = InterArrivalDelta()
        let origin: Int64 = 1_000_000  // ms: any origin, only differences matter
        for (index, packet) in test.packets.enumerated() {
            let send = Instant(nanoseconds: (origin + packet.send) * 1_000_000)
            // The receiver's clock has another origin than the sender's.
            let arrival = Instant(nanoseconds: (7 * origin + packet.arrival) * 1_000_000)
            let system = Instant(nanoseconds: (origin + (packet.system ?? packet.send + 200)) * 1_000_000)
            let deltas = interArrival.computeDeltas(sendTime: send, arrivalTime: arrival, systemTime: system, size: packet.size)
            let got = deltas.map { ($0.sendDelta, $0.arrivalDelta, $0.sizeDelta) }
            if let expected = packet.expected {
                #expect(got?.0 == .milliseconds(expected.send), "packet \(index)")
                #expect(got?.1 == .milliseconds(expected.arrival), "packet \(index)")
                #expect(got?.2 == expected.size, "packet \(index)")
            } else {
                #expect(got == nil, "packet \(index): unexpected \(String(describing: got))")
            }
        }
    }
}
