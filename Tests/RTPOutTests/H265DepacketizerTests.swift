import Bitstream
import Foundation
import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

struct H265DepacketizerTests {
    /// RFC 7798 payloads as bytes on the wire, and what they read as.
    @Test(arguments: [
        ("single NAL unit packet (TRAIL_R)", [0x02, 0x01, 0xAA] as [UInt8], H265Payload.single([0x02, 0x01, 0xAA])),
        ("single packet of a 2-byte EOS", [0x48, 0x01], .single([0x48, 0x01])),
        ("AP with VPS, SPS, PPS",
         [0x60, 0x01, 0x00, 0x03, 0x40, 0x01, 0x0C, 0x00, 0x03, 0x42, 0x01, 0x01, 0x00, 0x02, 0x44, 0x01],
         .aggregate([[0x40, 0x01, 0x0C], [0x42, 0x01, 0x01], [0x44, 0x01]])),
        ("AP with a single unit (RFC 7798 asks for two; FFmpeg and GStreamer take one)",
         [0x60, 0x01, 0x00, 0x02, 0x44, 0x01], .aggregate([[0x44, 0x01]])),
        ("FU start of an IDR_W_RADL", [0x62, 0x01, 0x93, 0xAF, 0x01],
         .fragment(nalHeader: HEVC.NALUnitHeader(0x26, 0x01), start: true, end: false, data: [0xAF, 0x01])),
        ("FU middle", [0x62, 0x01, 0x13, 0x02], .fragment(nalHeader: HEVC.NALUnitHeader(0x26, 0x01), start: false, end: false, data: [0x02])),
        ("FU end keeps F, LayerId and TID", [0xE3, 0x0A, 0x41, 0x03],
         .fragment(nalHeader: HEVC.NALUnitHeader(0x83, 0x0A), start: false, end: true, data: [0x03])),
        ("PACI around a single NAL unit: PHES skipped, header rebuilt with Type = cType",
         [0x64, 0x01,  // PayloadHdr Type=50 TID=1
          0x02, 0x20,  // A=0 cType=1 PHSsize=2 F0..2=0 Y=0
          0xEE, 0xEE,  // PHES
          0xAA, 0xBB], .single([0x02, 0x01, 0xAA, 0xBB])),
        ("PACI around an FU", [0x64, 0x01, 0x62, 0x00, 0x93, 0x07],  // cType=49 PHSsize=0
         .fragment(nalHeader: HEVC.NALUnitHeader(0x26, 0x01), start: true, end: false, data: [0x07])),
    ] as [(String, [UInt8], H265Payload)])
    func parsesPayload(name: String, bytes: [UInt8], expected: H265Payload) throws {
        #expect(try H265Payload(parsing: bytes[...]) == expected, "\(name)")
    }

    @Test(arguments: [
        ("empty", [] as [UInt8], RTPError.Code.truncated),
        ("half a payload header", [0x02], .truncated),
        ("AP without units", [0x60, 0x01], .truncated),
        ("AP with a zero-size unit", [0x60, 0x01, 0x00, 0x00], .malformedPayload),
        ("AP with a unit shorter than its header", [0x60, 0x01, 0x00, 0x01, 0x02], .malformedPayload),
        ("AP unit size past the end", [0x60, 0x01, 0x00, 0x05, 0x02, 0x01], .truncated),
        ("AP with half a size field", [0x60, 0x01, 0x00, 0x02, 0x02, 0x01, 0x00], .truncated),
        ("FU nested in an AP", [0x60, 0x01, 0x00, 0x03, 0x62, 0x01, 0x93], .malformedPayload),
        ("FU without FU header", [0x62, 0x01], .truncated),
        ("FU with S and E", [0x62, 0x01, 0xD3, 0x00], .malformedPayload),
        ("FU carrying an AP", [0x62, 0x01, 0xB0, 0x00], .malformedPayload),
        ("PACI in a PACI", [0x64, 0x01, 0x64, 0x00], .malformedPayload),
        ("PACI header extension past the end", [0x64, 0x01, 0x02, 0x30, 0xEE], .truncated),
        ("PACI without its fields", [0x64, 0x01, 0x02], .truncated),
        ("unspecified type 51", [0x66, 0x01, 0x00], .malformedPayload),
        ("unspecified type 63", [0x7E, 0x01], .malformedPayload),
    ] as [(String, [UInt8], RTPError.Code)])
    func rejectsMalformed(name: String, bytes: [UInt8], code: RTPError.Code) {
        let error = #expect(throws: RTPError.self, "\(name)") { try H265Payload(parsing: bytes[...]) }
        #expect(error?.code == code, "\(name)")
    }

    /// Drip-feed: every strict prefix of these payloads fails cleanly; only the whole one parses.
    @Test(arguments: [
        [0x60, 0x01, 0x00, 0x04, 0x26, 0x01, 0xAF, 0x09] as [UInt8],  // AP with one unit
        [0x62, 0x01, 0x93],  // FU start with no data yet
        [0x64, 0x01, 0x60, 0x30, 0xEE, 0xEE, 0xEE, 0x00, 0x02, 0x44, 0x01],  // PACI (PHSsize 3) around an AP
    ])
    func dripFeed(payload: [UInt8]) {
        RTPOutTests.dripFeed(payload) { (bytes) throws(RTPError) in try H265Payload(parsing: bytes) }
    }

    @Test func reassemblesFragmentsAndGroupsByMarker() {
        let events = depacketize([
            rtp(10, [0x60, 0x01, 0x00, 0x03, 0x40, 0x01, 0x0C, 0x00, 0x03, 0x42, 0x01, 0x01, 0x00, 0x02, 0x44, 0x01]),
            rtp(11, [0x62, 0x01, 0x93, 0xAF, 0x01]),  // FU start, IDR_W_RADL
            rtp(12, [0x62, 0x01, 0x13, 0x02]),
            rtp(13, [0x62, 0x01, 0x53, 0x03], marker: true),  // FU end
            rtp(14, [0x02, 0x01, 0x09], timestamp: 6000, marker: true),  // TRAIL_R
        ], as: H265PayloadFormat.self)
        let units = events.compactMap(\.accessUnit)
        #expect(units == [
            ReceivedAccessUnit(codec: .hevc, timestamp: 3000,
                               nalUnits: [[0x40, 0x01, 0x0C], [0x42, 0x01, 0x01], [0x44, 0x01], [0x26, 0x01, 0xAF, 0x01, 0x02, 0x03]]),
            ReceivedAccessUnit(codec: .hevc, timestamp: 6000, nalUnits: [[0x02, 0x01, 0x09]]),
        ])
        #expect(units.map(\.isKeyframe) == [true, false])
        let coded = units[0].accessUnit
        #expect(coded.codec == .hevc && coded.isKeyframe && coded.framing == .annexB)
        #expect(coded.nalUnits.map(\.type) == [32, 33, 34, 19])
        #expect(coded.bytes.suffix(10) == [0, 0, 0, 1, 0x26, 0x01, 0xAF, 0x01, 0x02, 0x03])
        #expect(coded.presentationTime == MediaTime(value: 3000, timescale: 90_000))
        // A CRA is a random-access point too.
        #expect(ReceivedAccessUnit(codec: .hevc, timestamp: 0, nalUnits: [[0x2A, 0x01, 0x00]]).isKeyframe)
    }

    @Test func reordersWithinWindowAcrossWraparound() {
        let events = depacketize([
            rtp(65535, [0x62, 0x01, 0x81, 0x01]),
            rtp(1, [0x62, 0x01, 0x41, 0x03], marker: true),
            rtp(0, [0x62, 0x01, 0x01, 0x02]),
        ], as: H265PayloadFormat.self, flush: false)
        #expect(events.compactMap(\.accessUnit) == [ReceivedAccessUnit(codec: .hevc, timestamp: 3000, nalUnits: [[0x02, 0x01, 1, 2, 3]])])
        #expect(events.compactMap(\.lost).isEmpty)
    }

    @Test func lossOfAMiddleFragmentDropsTheAccessUnitAndSaysWhich() {
        let events = depacketize([
            rtp(1, [0x62, 0x01, 0x93, 0x01]),
            // 2 lost
            rtp(3, [0x62, 0x01, 0x53, 0x03], marker: true),
            rtp(4, [0x02, 0x01, 0x09], timestamp: 6000, marker: true),
        ], as: H265PayloadFormat.self, window: 2)
        #expect(events.compactMap(\.lost) == [[2]])
        #expect(events.compactMap(\.dropped) == [3000])
        #expect(events.compactMap(\.accessUnit).map(\.timestamp) == [6000])
    }

    @Test func malformedPayloadsAreCountedAndDropTheirAccessUnit() {
        var depacketizer = H265Depacketizer()
        var malformed = 0, dropped: [UInt32] = [], delivered: [UInt32] = []
        let packets = [
            rtp(1, [0x62, 0x01, 0xD3, 0x00], marker: true),  // FU with S and E
            rtp(2, [0x7E, 0x01], timestamp: 6000, marker: true),  // type 63
            rtp(3, [0x02, 0x01, 0x09], timestamp: 9000, marker: true),
            rtp(4, [0x62, 0x01, 0x53, 0x03], timestamp: 12000, marker: true),  // FU end without start
        ]
        for packet in packets {
            depacketizer.push(packet) { event in
                switch event {
                case .malformedPayload: malformed += 1
                case .accessUnitDropped(let timestamp, _): dropped.append(timestamp)
                case .accessUnit(let au): delivered.append(au.timestamp)
                case .packetsLost: break
                }
            }
        }
        #expect(malformed == 2 && dropped == [3000, 6000, 12000] && delivered == [9000])
        #expect(depacketizer.accessUnitsDropped == 3 && depacketizer.accessUnitsDelivered == 1)
    }

    /// Every prefix of every packet of a real access unit, each pushed as a whole access unit: never a crash, and
    /// each either delivered or reported (dropped or malformed), never silently lost.
    @Test func dripFedPacketsAreDeliveredOrReported() throws {
        let payloader = try H265Payloader(configuration: .init(maxPayloadSize: 60), headroom: 0)
        var payloads: [[UInt8]] = []
        try payloader.payload([hevcNAL(32, size: 8), hevcNAL(33, size: 12), hevcNAL(34, size: 5), hevcNAL(19, size: 150)]) {
            packet, _ in payloads.append(Array(packet))
        }
        var depacketizer = H265Depacketizer()
        var sequenceNumber: UInt16 = 0
        var pushed = 0, reported = 0
        for payload in payloads {
            for length in 0 ... payload.count {
                sequenceNumber &+= 1
                pushed += 1
                let packet = rtp(sequenceNumber, Array(payload.prefix(length)), timestamp: UInt32(sequenceNumber) * 3000, marker: true)
                depacketizer.push(packet) { event in
                    if case .packetsLost = event { return }
                    if case .malformedPayload = event { return }
                    reported += 1  // delivered or dropped: one per access unit
                }
            }
        }
        depacketizer.flush { if case .accessUnitDropped = $0 { reported += 1 } }
        #expect(reported == pushed)
        #expect(depacketizer.accessUnitsDelivered + depacketizer.accessUnitsDropped == pushed)
    }

    /// x265's access units (two slice segments per picture, VPS/SPS/PPS and SEI before each IRAP, CRA and IDR) through
    /// payloader → RTP bytes → depacketizer come back byte for byte, with the marker on each one's last packet only.
    @Test(arguments: [RTPAggregation.none, .zeroLatency, .max])
    func roundTripRealX265(aggregation: RTPAggregation) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        let stream = try Fixtures.x265(frames: 30, gop: 10, parameters: "slices=2", in: directory)
        let accessUnits = try TestAnnexB.hevcAccessUnits(stream)
        #expect(accessUnits.count == 30)
        let packetizer = try RTPPacketizer(
            payloader: try H265Payloader(configuration: .init(aggregation: aggregation, maxPayloadSize: 500)),
            payloadType: 96, ssrc: 7, sequencer: RTPSequencer(initial: 65000))
        var depacketizer = H265Depacketizer()
        var received: [ReceivedAccessUnit] = []
        var markers: [Bool] = []
        for (i, au) in accessUnits.enumerated() {
            markers.removeAll()
            try packetizer.packetize(au, timestamp: UInt32(i * 3000)) { bytes, _, marker in
                let packet = try! RTPPacket(parsing: Array(bytes))
                #expect(packet.marshalSize <= 512)
                markers.append(marker)
                depacketizer.push(packet) { if case .accessUnit(let au) = $0 { received.append(au) } }
            }
            #expect(markers.last == true && markers.dropLast().allSatisfy { !$0 })
        }
        depacketizer.flush { if case .accessUnit(let au) = $0 { received.append(au) } }
        #expect(received.count == 30)
        for (sent, got) in zip(accessUnits, received) {
            #expect(got.nalUnits == sent.map { Array($0) })
        }
        #expect(received.map(\.isKeyframe) == (0 ..< 30).map { $0 % 10 == 0 })
        #expect(depacketizer.accessUnitsDropped == 0 && depacketizer.packetsLost == 0)
    }

    /// The seam: H.265 through the same protocol-generic round trip as H.264.
    @Test func hevcThroughTheProtocols() throws {
        let units = [
            PayloaderSeamTests.lengthPrefixed([hevcNAL(32, size: 20), hevcNAL(33, size: 30), hevcNAL(34, size: 6), hevcNAL(19, size: 2500)],
                                              codec: .hevc, isKeyframe: true, frame: 0),
            PayloaderSeamTests.lengthPrefixed([hevcNAL(1, size: 300)], codec: .hevc, isKeyframe: false, frame: 1),
        ]
        var depacketizer = H265Depacketizer()
        #expect(depacketizer.codec == .hevc)
        let received = try PayloaderSeamTests.roundTrip(units, payloader: try H265Payloader(), depacketizer: &depacketizer)
        #expect(received.map(\.nalUnits) == units.map { $0.nalUnitBytes.map(Array.init) })
        #expect(received.map(\.accessUnit.isKeyframe) == [true, false])
        #expect(received.allSatisfy { $0.codec == .hevc })
    }
}
