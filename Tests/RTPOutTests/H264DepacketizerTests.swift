import Foundation
import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

func rtp(_ sequenceNumber: UInt16, _ payload: [UInt8], timestamp: UInt32 = 3000, marker: Bool = false) -> RTPPacket {
    RTPPacket(header: RTPHeader(marker: marker, payloadType: 96, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: 1),
              payload: payload[...])
}

/// Feeds packets to a depacketizer of `format` (H.264 unless said) and collects the events.
func depacketize<Format: RTPPayloadFormat>(
    _ packets: [RTPPacket], as format: Format.Type = H264PayloadFormat.self, window: Int = 16, flush: Bool = true
) -> [DepacketizerEvent] {
    var depacketizer = AccessUnitDepacketizer<Format>(reorderWindow: window)
    var events: [DepacketizerEvent] = []
    for packet in packets { depacketizer.push(packet) { events.append($0) } }
    if flush { depacketizer.flush { events.append($0) } }
    return events
}

extension DepacketizerEvent {
    var accessUnit: ReceivedAccessUnit? { if case .accessUnit(let au) = self { au } else { nil } }
    var lost: [UInt16]? { if case .packetsLost(let l) = self { l } else { nil } }
    var dropped: UInt32? { if case .accessUnitDropped(let ts, _) = self { ts } else { nil } }
}

struct H264DepacketizerTests {
    @Test(arguments: [
        ("single NAL", [0x65, 0xAA] as [UInt8], H264Payload.single([0x65, 0xAA])),
        ("STAP-A", [
            0x78,  // F=0 NRI=3 type 24
            0x00, 0x02, 0x67, 0x01,  // size 2: SPS
            0x00, 0x01, 0x68,  // size 1: PPS
        ], .aggregate([[0x67, 0x01], [0x68]])),
        ("FU-A start", [
            0x7C,  // F=0 NRI=3 type 28
            0x85,  // S=1 E=0 type 5
            0x01, 0x02,
        ], .fragment(nalHeader: 0x65, start: true, end: false, data: [1, 2])),
        ("FU-A end, empty", [0x5C, 0x41], .fragment(nalHeader: 0x41, start: false, end: true, data: [])),
    ])
    func parsesPayload(name: String, bytes: [UInt8], expected: H264Payload) throws {
        #expect(try H264Payload(parsing: bytes[...]) == expected, "\(name)")
    }

    @Test func dripFeedSTAPA() {
        dripFeed([0x78, 0x00, 0x02, 0x67, 0x01, 0x00, 0x01, 0x68], from: 1) { b throws(RTPError) in
            // A STAP-A prefix that ends exactly between units is a valid shorter STAP-A.
            let parsed = try H264Payload(parsing: b)
            if b.count == 5 { throw RTPError(code: .truncated, reason: "valid prefix, skipped") }
            return parsed
        }
    }

    @Test(arguments: [
        ("empty", [] as [UInt8], RTPError.Code.truncated),
        ("STAP-A without units", [0x78], .truncated),
        ("STAP-A zero-size unit", [0x78, 0x00, 0x00, 0x67], .malformedPayload),
        ("STAP-A unit past end", [0x78, 0x00, 0x05, 0x67, 0x01], .truncated),
        ("STAP-A nested STAP-A", [0x78, 0x00, 0x02, 0x78, 0x00], .malformedPayload),
        ("STAP-A nested FU-A", [0x78, 0x00, 0x02, 0x7C, 0x85], .malformedPayload),
        ("FU-A with S and E", [0x7C, 0xC5, 0x01], .malformedPayload),
        ("FU-A of an FU-A", [0x7C, 0x9C, 0x01], .malformedPayload),
        ("FU-A without FU header", [0x7C], .truncated),
        ("STAP-B", [0x79, 0x00, 0x00], .unsupported),
        ("MTAP16", [0x7A], .unsupported),
        ("FU-B", [0x7D, 0x85, 0x00, 0x00], .unsupported),
        ("type 0", [0x00, 0x01], .malformedPayload),
        ("type 30", [0x1E, 0x01], .malformedPayload),
    ])
    func rejectsMalformed(name: String, bytes: [UInt8], code: RTPError.Code) {
        let error = #expect(throws: RTPError.self, "\(name)") { try H264Payload(parsing: bytes[...]) }
        #expect(error?.code == code, "\(name)")
    }

    @Test func reassemblesFragmentsAndGroupsByMarker() {
        let events = depacketize([
            rtp(10, [0x78, 0x00, 0x02, 0x67, 0x01, 0x00, 0x01, 0x68]),  // STAP-A SPS+PPS
            rtp(11, [0x7C, 0x85, 0x01, 0x02]),  // FU-A start, IDR
            rtp(12, [0x7C, 0x45, 0x03], marker: true),  // FU-A end
            rtp(13, [0x41, 0x09], timestamp: 6000, marker: true),  // single non-IDR
        ])
        let units = events.compactMap(\.accessUnit)
        #expect(units == [
            ReceivedAccessUnit(timestamp: 3000, nalUnits: [[0x67, 0x01], [0x68], [0x65, 0x01, 0x02, 0x03]]),
            ReceivedAccessUnit(timestamp: 6000, nalUnits: [[0x41, 0x09]]),
        ])
        #expect(units[0].isKeyframe && !units[1].isKeyframe)
        #expect(units[1].annexB == [0, 0, 0, 1, 0x41, 0x09])
        // As a CodedAccessUnit: Annex-B, the ranges laid while joining, the RTP timestamp on the 90 kHz clock.
        let coded = units[0].accessUnit
        #expect(coded.bytes == [0, 0, 0, 1, 0x67, 0x01, 0, 0, 0, 1, 0x68, 0, 0, 0, 1, 0x65, 0x01, 0x02, 0x03])
        #expect(coded.nalUnits == [.init(type: 7, range: 4..<6), .init(type: 8, range: 10..<11), .init(type: 5, range: 15..<19)])
        #expect(coded.framing == .annexB && coded.codec == .h264 && coded.isKeyframe)
        #expect(coded.presentationTime == MediaTime(value: 3000, timescale: 90_000))
        #expect(!units[1].accessUnit.isKeyframe)
        // The keyframe flag follows the NAL units when they change (ParameterSetPrimer rewrites them).
        var edited = units[1]
        edited.nalUnits = [[0x65, 0x01]]
        #expect(edited.isKeyframe)
    }

    @Test func reordersWithinWindowAcrossWraparound() {
        let events = depacketize([
            rtp(65535, [0x7C, 0x85, 0x01]),
            rtp(1, [0x7C, 0x45, 0x03], marker: true),
            rtp(0, [0x7C, 0x05, 0x02]),
        ], flush: false)
        #expect(events.compactMap(\.accessUnit) == [ReceivedAccessUnit(timestamp: 3000, nalUnits: [[0x65, 1, 2, 3]])])
        #expect(events.compactMap(\.lost).isEmpty)
    }

    @Test func lossDropsTheAccessUnitAndSaysWhich() {
        let events = depacketize([
            rtp(1, [0x7C, 0x85, 0x01]),
            // 2 lost (middle fragment)
            rtp(3, [0x7C, 0x45, 0x03], marker: true),
            rtp(4, [0x41, 0x09], timestamp: 6000, marker: true),
        ], window: 2)
        #expect(events.compactMap(\.lost) == [[2]])
        #expect(events.compactMap(\.dropped) == [3000])
        // Packet 3 shares the timestamp of 1, so the hole was inside that access unit and the next one is whole.
        #expect(events.compactMap(\.accessUnit).map(\.timestamp) == [6000])
    }

    @Test func holeBeforeANewTimestampDropsBothSides() {
        let events = depacketize([
            rtp(1, [0x7C, 0x85, 0x01]),
            // 2 lost: the tail of 3000 or the head of 6000, no way to know
            rtp(3, [0x41, 0x03], timestamp: 6000, marker: true),
            rtp(4, [0x41, 0x04], timestamp: 9000, marker: true),
        ], window: 2)
        #expect(events.compactMap(\.dropped) == [3000, 6000])
        #expect(events.compactMap(\.accessUnit).map(\.timestamp) == [9000])
    }

    @Test func lossBetweenAccessUnitsKeepsTheEarlierOne() {
        let events = depacketize([
            rtp(1, [0x65, 0x01], marker: true),
            rtp(3, [0x41, 0x03], timestamp: 6000, marker: true),
            rtp(4, [0x41, 0x04], timestamp: 9000, marker: true),
        ], window: 1)
        #expect(events.compactMap(\.accessUnit).map(\.timestamp) == [3000, 9000])
        #expect(events.compactMap(\.dropped) == [6000])
        #expect(events.compactMap(\.lost) == [[2]])
    }

    @Test func fragmentWithoutStartIsDropped() {
        let events = depacketize([rtp(1, [0x7C, 0x45, 0x03], marker: true)])
        #expect(events.compactMap(\.dropped) == [3000])
    }

    @Test func malformedPayloadDropsItsAccessUnit() {
        let events = depacketize([rtp(1, [0x78, 0x00, 0x00], marker: true), rtp(2, [0x41, 1], timestamp: 6000, marker: true)])
        #expect(events.contains { if case .malformedPayload(let e) = $0 { e.code == .malformedPayload } else { false } })
        #expect(events.compactMap(\.dropped) == [3000])
        #expect(events.compactMap(\.accessUnit).map(\.timestamp) == [6000])
    }

    @Test func duplicatesAndLatePacketsAreIgnored() {
        var depacketizer = H264Depacketizer(reorderWindow: 4)
        var units = 0
        for packet in [rtp(5, [0x41, 1], marker: true), rtp(5, [0x41, 1], marker: true), rtp(4, [0x41, 0], marker: true)] {
            depacketizer.push(packet) { if case .accessUnit = $0 { units += 1 } }
        }
        #expect(units == 1)
        #expect(depacketizer.latePackets == 2)  // the duplicate is older than the next expected, so it counts as late
    }

    @Test(arguments: [H264PayloaderConfiguration.Aggregation.none, .zeroLatency, .max])
    func roundTripRealX264(aggregation: H264PayloaderConfiguration.Aggregation) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        // Two threads with zerolatency: sliced threads, so access units have several slices.
        let stream = try Fixtures.x264(frames: 30, extra: ["-threads", "2", "-g", "10"], in: directory)
        let accessUnits = try TestAnnexB.accessUnits(stream)
        #expect(accessUnits.count == 30)
        let packetizer = try H264Packetizer(
            payloader: try H264Payloader(configuration: .init(aggregation: aggregation, maxPayloadSize: 500)),
            payloadType: 96, ssrc: 7, sequencer: RTPSequencer(initial: 65000))
        var depacketizer = H264Depacketizer()
        var received: [ReceivedAccessUnit] = []
        for (i, au) in accessUnits.enumerated() {
            try packetizer.packetize(au, timestamp: UInt32(i * 3000)) { bytes, _, _ in
                let packet = try! RTPPacket(parsing: Array(bytes))
                #expect(packet.marshalSize <= 512)
                depacketizer.push(packet) { if case .accessUnit(let au) = $0 { received.append(au) } }
            }
        }
        depacketizer.flush { if case .accessUnit(let au) = $0 { received.append(au) } }
        #expect(received.count == 30)
        for (sent, got) in zip(accessUnits, received) {
            #expect(got.nalUnits == sent.map { Array($0) })
        }
    }
}

struct ReorderBufferTests {
    @Test func holeExpiresAfterMaxDelay() {
        var buffer = ReorderBuffer<Int>(window: 64, maxDelay: .milliseconds(100))
        var out: [String] = []
        let record: (ReorderBuffer<Int>.Release) -> Void = { release in
            switch release {
            case .packet(let value, _): out.append("p\(value)")
            case .lost(let range): out.append("lost \(range.lowerBound)...\(range.upperBound)")
            }
        }
        buffer.push(1, sequenceNumber: 1, arrival: t0, release: record)
        buffer.push(3, sequenceNumber: 3, arrival: t0 + .milliseconds(10), release: record)
        buffer.push(4, sequenceNumber: 4, arrival: t0 + .milliseconds(20), release: record)
        buffer.expire(now: t0 + .milliseconds(100), release: record)  // 3 has waited 90 ms: keep waiting
        #expect(out == ["p1"])
        buffer.expire(now: t0 + .milliseconds(110), release: record)
        #expect(out == ["p1", "lost 2...2", "p3", "p4"])
    }

    @Test func reorderedPacketWithinTheDelayIsNotLost() {
        var buffer = ReorderBuffer<Int>(window: 64, maxDelay: .milliseconds(100))
        var values: [Int] = []
        let record: (ReorderBuffer<Int>.Release) -> Void = { if case .packet(let v, _) = $0 { values.append(v) } }
        buffer.push(1, sequenceNumber: 1, arrival: t0, release: record)
        buffer.push(3, sequenceNumber: 3, arrival: t0, release: record)
        buffer.expire(now: t0 + .milliseconds(50), release: record)
        buffer.push(2, sequenceNumber: 2, arrival: t0 + .milliseconds(60), release: record)
        #expect(values == [1, 2, 3])
    }

    @Test func hugeJumpIsOneLossRangeNotALoop() {
        var buffer = ReorderBuffer<Int>(window: 8)
        var releases: [ReorderBuffer<Int>.Release] = []
        buffer.push(0, sequenceNumber: 0) { releases.append($0) }
        buffer.push(1, sequenceNumber: 30000) { releases.append($0) }
        #expect(releases.count == 2)  // packet 0, then one lost range; 30000 waits for its window
        if case .lost(let range) = releases.last { #expect(range == 1 ... 29992) } else { Issue.record("no loss") }
    }
}

struct DepacketizerBoundsTests {
    @Test func endlessFragmentsAreCutAtTheAccessUnitBound() {
        var depacketizer = H264Depacketizer()
        var dropped = 0
        let chunk = [UInt8](repeating: 7, count: 60_000)
        var seq: UInt16 = 0
        depacketizer.push(rtp(seq, [0x7C, 0x85] + chunk)) { _ in }
        for _ in 0 ..< (H264Depacketizer.maxAccessUnitBytes / chunk.count + 2) {
            seq &+= 1
            depacketizer.push(rtp(seq, [0x7C, 0x05] + chunk)) { _ in }
        }
        seq &+= 1
        depacketizer.push(rtp(seq, [0x7C, 0x45, 1], marker: true)) { if case .accessUnitDropped = $0 { dropped += 1 } }
        #expect(dropped == 1)
    }
}
