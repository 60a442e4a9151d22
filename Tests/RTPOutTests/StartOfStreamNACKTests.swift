import Testing
@testable import RTP
@testable import RTPOut

/// Recovering the packets before the first one a receiver sees: which first packets ask (`StartOfStreamNACK`), the
/// reorder buffer's start moving back (`ReorderBuffer.expectEarlier`), the depacketizer holding the first IDR until
/// its parameter sets come back, and the sender ignoring numbers it never sent.
struct StartOfStreamNACKTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    /// STAP-A (F=0 NRI=3 type 24) of the SPS and PPS, each after its 16-bit size.
    static let stapA: [UInt8] = [0x78, 0x00, 0x04] + sps + [0x00, 0x04] + pps

    @Test(arguments: [
        ("STAP-A with SPS and PPS: the stream begins here", stapA, false, nil),
        ("STAP-A with SPS, PPS, SEI", [0x78, 0x00, 0x02, 0x67, 0x42, 0x00, 0x02, 0x68, 0xCE, 0x00, 0x02, 0x06, 0x05], false, nil),
        ("SPS alone (single NAL unit packet)", [0x67, 0x42, 0xC0], false, nil),
        ("PPS alone: its SPS came before", [0x68, 0xCE, 0x3C], false, StartOfStreamNACK.lookBack),
        ("IDR slice whole (single NAL unit)", [0x65, 0x88, 0x84], false, StartOfStreamNACK.lookBack),
        ("FU-A start of an IDR slice", [0x7C, 0x85, 0x88], false, StartOfStreamNACK.lookBack),
        ("FU-A middle of an IDR slice: its start is missing too", [0x7C, 0x05, 0x01], false, StartOfStreamNACK.lookBackWithoutFragmentStart),
        ("FU-A end of an IDR slice", [0x7C, 0x45, 0x01], false, StartOfStreamNACK.lookBackWithoutFragmentStart),
        ("SEI", [0x06, 0x05, 0x01], false, StartOfStreamNACK.lookBack),
        ("access unit delimiter", [0x09, 0x10], false, StartOfStreamNACK.lookBack),
        ("STAP-A of an SEI and an IDR slice", [0x78, 0x00, 0x02, 0x06, 0x05, 0x00, 0x02, 0x65, 0x88], false, StartOfStreamNACK.lookBack),
        ("P slice: the IDR is further back (joined late, first frame lost)", [0x41, 0x9A, 0x02], false, nil),
        ("FU-A start of a P slice", [0x5C, 0x81, 0x9A], false, nil),
        ("FU-A middle of a P slice", [0x5C, 0x01, 0x9A], false, nil),
        ("IDR slice, parameter sets known from the SDP", [0x7C, 0x85, 0x88], true, nil),
    ] as [(String, [UInt8], Bool, Int?)])
    func whichFirstPacketsAsk(name: String, payload: [UInt8], parameterSetsKnown: Bool, expected: Int?) throws {
        let parsed = try H264Payload(parsing: payload[...])
        #expect(StartOfStreamNACK.count(firstPacket: parsed, parameterSetsKnown: parameterSetsKnown) == expected, "\(name)")
        #expect(StartOfStreamNACK.lookBackWithoutFragmentStart <= 16, "one FCI: a PID and 16 bits of bitmask")
    }

    /// One step on a `ReorderBuffer<UInt16>` whose elements are their own sequence numbers.
    enum Step: Sendable, CustomStringConvertible {
        /// `expectEarlier(count, before:, until: t0 + ms)`; the numbers it awaits (as on the wire), empty if refused.
        case expect(Int, before: UInt16, deadlineMs: Int, awaits: [UInt16])
        case push(UInt16, atMs: Int)
        case settle(UInt16)
        case expire(atMs: Int)
        case flush

        var description: String {
            switch self {
            case .expect(let count, let before, let ms, _): "expect \(count) before \(before) until \(ms) ms"
            case .push(let seq, let ms): "push \(seq) at \(ms) ms"
            case .settle(let seq): "settle at \(seq)"
            case .expire(let ms): "expire at \(ms) ms"
            case .flush: "flush"
            }
        }
    }

    /// Each case: window, steps, then what was released ("p N" a packet, "lost A…B" a loss, sequence numbers as on
    /// the wire), the numbers still missing at the end, and the late packets counted.
    @Test(arguments: [
        ("the packet before the first comes back: released in order, the never-sent ones skipped silently", 64, [
            Step.expect(4, before: 100, deadlineMs: 100, awaits: [96, 97, 98, 99]), .push(100, atMs: 0), .push(101, atMs: 10),
            .push(99, atMs: 70), .expire(atMs: 99), .expire(atMs: 100),
        ], ["p 99", "p 100", "p 101"], [], 0),
        ("the packet with the stream's start settles it at once", 64, [
            .expect(4, before: 100, deadlineMs: 100, awaits: [96, 97, 98, 99]), .push(100, atMs: 0), .settle(99), .push(99, atMs: 70),
        ], ["p 99", "p 100"], [], 0),
        ("settled two before the first: the one between is an ordinary hole, lost on flush", 64, [
            .expect(4, before: 100, deadlineMs: 100, awaits: [96, 97, 98, 99]), .push(100, atMs: 0), .settle(98), .push(98, atMs: 70),
            .flush,
        ], ["p 98", "lost 99…99", "p 100"], [], 0),
        ("held before the settled start: dropped as late", 64, [
            .expect(4, before: 100, deadlineMs: 100, awaits: [96, 97, 98, 99]), .push(100, atMs: 0), .push(97, atMs: 60),
            .settle(99), .push(99, atMs: 70),
        ], ["p 99", "p 100"], [], 1),
        ("none comes back: everything held is released at the deadline, nothing reported lost", 64, [
            .expect(4, before: 100, deadlineMs: 100, awaits: [96, 97, 98, 99]), .push(100, atMs: 0), .push(101, atMs: 10),
            .expire(atMs: 50), .expire(atMs: 100),
        ], ["p 100", "p 101"], [], 0),
        ("one came, one before it did not: that one skipped, the one after it is a hole", 64, [
            .expect(4, before: 100, deadlineMs: 100, awaits: [96, 97, 98, 99]), .push(100, atMs: 0), .push(98, atMs: 70),
            .expire(atMs: 100),
        ], ["p 98"], [99], 0),
        ("while awaited, the missing numbers are listed for the NACK", 64, [
            .expect(3, before: 100, deadlineMs: 100, awaits: [97, 98, 99]), .push(100, atMs: 0), .push(102, atMs: 5),
        ], [], [97, 98, 99, 101], 0),
        ("older than the awaited numbers: late", 64, [
            .expect(2, before: 100, deadlineMs: 100, awaits: [98, 99]), .push(100, atMs: 0), .push(97, atMs: 60), .flush,
        ], ["p 100"], [], 1),
        ("no rewind after a release: refused, the packet before the first is late", 64, [
            .push(100, atMs: 0), .expect(4, before: 100, deadlineMs: 100, awaits: []), .push(99, atMs: 60),
        ], ["p 100"], [], 1),
        ("no further back than one window", 8, [
            .expect(8, before: 100, deadlineMs: 100, awaits: []), .expect(7, before: 100, deadlineMs: 100, awaits: [93, 94, 95, 96, 97, 98, 99]),
        ], [], [], 0),
        ("a packet a window ahead ends the wait", 8, [
            .expect(4, before: 100, deadlineMs: 100, awaits: [96, 97, 98, 99]), .push(100, atMs: 0), .push(104, atMs: 5), .flush,
        ], ["p 100", "lost 101…103", "p 104"], [], 0),
        ("flush while awaiting: nothing reported lost before the first packet", 64, [
            .expect(4, before: 100, deadlineMs: 100, awaits: [96, 97, 98, 99]), .push(100, atMs: 0), .flush,
        ], ["p 100"], [], 0),
        ("wrap-around: the first packet is 1, the numbers before it 65533…0", 64, [
            .expect(4, before: 1, deadlineMs: 100, awaits: [65533, 65534, 65535, 0]), .push(1, atMs: 0), .push(2, atMs: 5),
            .push(65535, atMs: 70), .push(0, atMs: 71), .expire(atMs: 100), .push(3, atMs: 110),
        ], ["p 65535", "p 0", "p 1", "p 2", "p 3"], [], 0),
        ("wrap-around: the first packet is 0, 65535 comes back and settles", 64, [
            .expect(4, before: 0, deadlineMs: 100, awaits: [65532, 65533, 65534, 65535]), .push(0, atMs: 0), .settle(65535),
            .push(65535, atMs: 70), .push(1, atMs: 80),
        ], ["p 65535", "p 0", "p 1"], [], 0),
    ] as [(String, Int, [Step], [String], [UInt16], Int)])
    func reorderBufferStartMovesBack(name: String, window: Int, steps: [Step], released: [String], missing: [UInt16], late: Int) {
        var buffer = ReorderBuffer<UInt16>(window: window, maxDelay: .milliseconds(300))
        var out: [String] = []
        let record: (ReorderBuffer<UInt16>.Release) -> Void = { release in
            switch release {
            case .packet(let seq, let extended):
                #expect(UInt16(truncatingIfNeeded: extended) == seq, "\(name): extended \(extended) for \(seq)")
                out.append("p \(seq)")
            case .lost(let range): out.append("lost \(range.lowerBound & 0xFFFF)…\(range.upperBound & 0xFFFF)")
            }
        }
        for step in steps {
            switch step {
            case .expect(let count, let before, let ms, let awaits):
                let range = buffer.expectEarlier(count, before: before, until: t0 + .milliseconds(ms))
                #expect((range?.map { UInt16(truncatingIfNeeded: $0) } ?? []) == awaits, "\(name): \(step)")
            case .push(let seq, let ms): buffer.push(seq, sequenceNumber: seq, arrival: t0 + .milliseconds(ms), release: record)
            case .settle(let seq): buffer.settleStart(at: seq, release: record)
            case .expire(let ms): buffer.expire(now: t0 + .milliseconds(ms), release: record)
            case .flush: buffer.flush(release: record)
            }
        }
        #expect(out == released, "\(name)")
        #expect(buffer.missing.map { UInt16(truncatingIfNeeded: $0) } == missing, "\(name)")
        #expect(buffer.latePackets == late, "\(name)")
    }

    // MARK: - The depacketizer holds the first IDR until its parameter sets come back

    static let idrStart: [UInt8] = [0x7C, 0x85, 0x88, 0x84]  // FU-A (NRI 3), S=1, type 5
    static let idrMiddle: [UInt8] = [0x7C, 0x05, 0x21]
    static let idrEnd: [UInt8] = [0x7C, 0x45, 0x43]  // E=1

    /// The STAP-A (9) was lost, the IDR's fragments 10…12 arrive; `answer`: the packets that come back after the NACK.
    func firstIDR(first: UInt16, answer: [RTPPacket], expireAtMs: Int?) -> (awaited: [UInt16], events: [DepacketizerEvent]) {
        var depacketizer = H264Depacketizer(reorderWindow: 64, maxReorderDelay: .milliseconds(300))
        var events: [DepacketizerEvent] = []
        #expect(depacketizer.awaitsFirstPacket)
        let payload = try? H264Payload(parsing: Self.idrStart[...])
        let count = payload.flatMap { StartOfStreamNACK.count(firstPacket: $0, parameterSetsKnown: false) } ?? 0
        let awaited = depacketizer.expectEarlierPackets(count, before: first, until: t0 + .milliseconds(100))
        depacketizer.push(rtp(first, Self.idrStart), arrival: t0) { events.append($0) }
        depacketizer.push(rtp(first &+ 1, Self.idrMiddle), arrival: t0) { events.append($0) }
        depacketizer.push(rtp(first &+ 2, Self.idrEnd, marker: true), arrival: t0) { events.append($0) }
        #expect(events.isEmpty, "the first IDR is held while its parameter sets are awaited")
        #expect(depacketizer.isAwaitingEarlierPackets)
        for packet in answer { depacketizer.push(packet, arrival: t0 + .milliseconds(70)) { events.append($0) } }
        if let expireAtMs { depacketizer.expire(now: t0 + .milliseconds(expireAtMs)) { events.append($0) } }
        return (awaited, events)
    }

    @Test func theSTAPAComesBackAndTheFirstIDRDecodes() {
        let (awaited, events) = firstIDR(first: 10, answer: [rtp(9, Self.stapA)], expireAtMs: nil)
        #expect(awaited == [6, 7, 8, 9])
        #expect(events.compactMap(\.accessUnit).map(\.nalUnits) == [[Self.sps, Self.pps, [0x65, 0x88, 0x84, 0x21, 0x43]]])
        #expect(events.allSatisfy { $0.accessUnit != nil }, "nothing lost, nothing dropped: \(events)")
    }

    @Test func acrossTheWrapTheSTAPAComesBack() {
        let (awaited, events) = firstIDR(first: 0, answer: [rtp(65535, Self.stapA)], expireAtMs: nil)
        #expect(awaited == [65532, 65533, 65534, 65535])
        #expect(events.compactMap(\.accessUnit).first?.nalUnits.first == Self.sps)
        #expect(events.count == 1)
    }

    @Test func unansweredTheFirstIDRIsReleasedAtTheDeadlineWithoutALoss() {
        let (_, held) = firstIDR(first: 10, answer: [], expireAtMs: 99)
        #expect(held.isEmpty)
        let (_, events) = firstIDR(first: 10, answer: [], expireAtMs: 100)
        #expect(events.compactMap(\.accessUnit).map(\.nalUnits) == [[[0x65, 0x88, 0x84, 0x21, 0x43]]])
        #expect(events.count == 1, "no packets reported lost, no access unit dropped: \(events)")
    }

    // MARK: - The sender ignores numbers it never sent

    /// The receiver NACKs numbers before the sender's first packet, which it may never have sent: the history has
    /// nothing there — an empty slot, or one a newer packet took — also across the wrap at 65535 → 0.
    @Test(arguments: [
        ("first packet 40000, asked 39996…39999", UInt16(40000), 3, [UInt16(39996), 39997, 39998, 39999]),
        ("first packet 0, asked 65532…65535", 0, 3, [65532, 65533, 65534, 65535]),
        ("first packet 10, ring of 4 full (10…15): asked 6…9", 10, 6, [6, 7, 8, 9]),
        ("first packet 65534, ring of 4 full (65534…3): asked 65530…65533", 65534, 6, [65530, 65531, 65532, 65533]),
    ] as [(String, UInt16, Int, [UInt16])])
    func historyHasNothingBeforeTheFirstPacket(name: String, first: UInt16, sent: Int, asked: [UInt16]) {
        let history = PacketHistory(capacity: 4, maxPacketSize: 16)
        for offset in 0 ..< sent {
            let seq = first &+ UInt16(offset)
            [UInt8(truncatingIfNeeded: seq), 1].withUnsafeBytes { history.store($0, sequenceNumber: seq, sentAt: t0) }
        }
        for seq in asked { #expect(history.withPacket(seq) { _, _ in true } == nil, "\(name): \(seq)") }
        #expect(history.withPacket(first &+ UInt16(sent - 1)) { bytes, _ in Array(bytes) } == [UInt8(truncatingIfNeeded: first &+ UInt16(sent - 1)), 1])
    }
}
