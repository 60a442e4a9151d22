import Testing
@testable import RTP
@testable import RTPOut

/// SplitMix64: a seeded generator so the randomized tests are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func randomBytes(_ count: Int, _ rng: inout SeededGenerator) -> [UInt8] {
    (0 ..< count).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
}

struct RandomizedTests {
    @Test func rtpPacketsRoundTrip() throws {
        var rng = SeededGenerator(state: 1)
        for _ in 0 ..< 500 {
            var header = RTPHeader(
                marker: .random(using: &rng), payloadType: .random(in: 0 ... 127, using: &rng),
                sequenceNumber: .random(in: 0 ... .max, using: &rng), timestamp: .random(in: 0 ... .max, using: &rng),
                ssrc: .random(in: 0 ... .max, using: &rng),
                csrcs: (0 ..< Int.random(in: 0 ... 15, using: &rng)).map { _ in .random(in: 0 ... .max, using: &rng) })
            switch Int.random(in: 0 ... 3, using: &rng) {
            case 1:
                header.extension = .oneByte((0 ..< Int.random(in: 0 ... 4, using: &rng)).map { _ in
                    .init(id: .random(in: 1 ... 14, using: &rng), data: randomBytes(.random(in: 1 ... 16, using: &rng), &rng)[...])
                })
            case 2:
                header.extension = .twoByte(appBits: .random(in: 0 ... 15, using: &rng), (0 ..< Int.random(in: 0 ... 4, using: &rng)).map { _ in
                    .init(id: .random(in: 1 ... 255, using: &rng), data: randomBytes(.random(in: 0 ... 40, using: &rng), &rng)[...])
                })
            case 3:
                header.extension = .other(profile: 0x1234, data: randomBytes(4 * .random(in: 0 ... 4, using: &rng), &rng)[...])
            default: break
            }
            let packet = RTPPacket(header: header, payload: randomBytes(.random(in: 0 ... 100, using: &rng), &rng)[...],
                                   paddingSize: .random(in: 0 ... 8, using: &rng))
            let bytes = try packet.marshal()
            #expect(bytes.count == packet.marshalSize)
            #expect(try RTPPacket(parsing: bytes) == packet)
        }
    }

    @Test func nackListsRoundTrip() {
        var rng = SeededGenerator(state: 2)
        for _ in 0 ..< 300 {
            var sequenceNumber = UInt16.random(in: 0 ... .max, using: &rng)
            var lost: [UInt16] = []
            for _ in 0 ..< Int.random(in: 1 ... 60, using: &rng) {
                lost.append(sequenceNumber)
                sequenceNumber &+= .random(in: 1 ... 20, using: &rng)
            }
            let nack = GenericNACK(senderSSRC: 1, mediaSSRC: 2, lost: lost)
            #expect(nack.lostSequenceNumbers == lost)
        }
    }

    /// Random bytes never crash a parser: each either parses or throws an `RTPError`.
    @Test func parsersSurviveRandomInput() {
        var rng = SeededGenerator(state: 3)
        for _ in 0 ..< 5000 {
            var bytes = randomBytes(.random(in: 0 ... 80, using: &rng), &rng)
            // Half the time make the first byte look like version 2, so parsing gets past the first check.
            if !bytes.isEmpty, Bool.random(using: &rng) { bytes[0] = bytes[0] & 0x3F | 0x80 }
            _ = try? RTPPacket(parsing: bytes)
            _ = try? RTCPCompound.parse(bytes)
            _ = try? H264Payload(parsing: bytes[...])
            _ = try? ReceivedSessionDescription(parsing: String(decoding: bytes, as: UTF8.self))
        }
        // And through the stateful depacketizer, as packets of one stream.
        var depacketizer = H264Depacketizer(reorderWindow: 8)
        for i in 0 ..< 3000 {
            let payload = randomBytes(.random(in: 0 ... 40, using: &rng), &rng)
            let packet = RTPPacket(header: RTPHeader(marker: .random(using: &rng), payloadType: 96,
                                                     sequenceNumber: UInt16(truncatingIfNeeded: i + Int.random(in: -3 ... 3, using: &rng)),
                                                     timestamp: UInt32(i / 4), ssrc: 1), payload: payload[...])
            depacketizer.push(packet) { _ in }
        }
        depacketizer.flush { _ in }
    }
}
