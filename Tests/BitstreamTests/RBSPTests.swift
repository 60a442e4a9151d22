import Bitstream
import Testing

@Suite struct RBSPTests {
    /// (RBSP, NAL payload) pairs: one table drives both directions.
    static let cases: [(rbsp: [UInt8], payload: [UInt8])] = [
        ([], []),
        ([0x01, 0x02], [0x01, 0x02]),
        // 00 00 00 → 00 00 03 00
        ([0x00, 0x00, 0x00, 0x10], [0x00, 0x00, 0x03, 0x00, 0x10]),
        // 00 00 01 → 00 00 03 01 (a start code would appear otherwise)
        ([0xAA, 0x00, 0x00, 0x01, 0xBB], [0xAA, 0x00, 0x00, 0x03, 0x01, 0xBB]),
        // 00 00 02, 00 00 03 likewise
        ([0x00, 0x00, 0x02], [0x00, 0x00, 0x03, 0x02]),
        ([0x00, 0x00, 0x03], [0x00, 0x00, 0x03, 0x03]),
        // 00 00 04 needs nothing
        ([0x00, 0x00, 0x04], [0x00, 0x00, 0x04]),
        // Four zeros then 01: the counter restarts after each inserted 03.
        ([0x00, 0x00, 0x00, 0x00, 0x01], [0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x01]),
        // An RBSP ending in a zero byte (cabac_zero_word, 00 00) gets a final 03 (§7.4.1).
        ([0x80, 0x00, 0x00], [0x80, 0x00, 0x00, 0x03]),
        ([0x80, 0x00, 0x00, 0x00, 0x00], [0x80, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03]),
    ]

    @Test(arguments: cases)
    func insertion(rbsp: [UInt8], payload: [UInt8]) {
        #expect(RBSP.addingEmulationPrevention(rbsp) == payload)
    }

    @Test(arguments: cases)
    func removal(rbsp: [UInt8], payload: [UInt8]) {
        #expect(RBSP.removingEmulationPrevention(payload[...]) == rbsp)
    }

    @Test func removalOfSliceInsideLargerBuffer() {
        let buffer: [UInt8] = [0xFF, 0x00, 0x00, 0x03, 0x01, 0xEE]
        #expect(RBSP.removingEmulationPrevention(buffer[1..<5]) == [0x00, 0x00, 0x01])
    }

    @Test func limitStopsEarly() {
        let payload: [UInt8] = [0x11, 0x00, 0x00, 0x03, 0x01, 0x22, 0x33, 0x44]
        #expect(RBSP.removingEmulationPrevention(payload[...], limit: 4) == [0x11, 0x00, 0x00, 0x01])
        #expect(RBSP.removingEmulationPrevention(payload[...], limit: 2) == [0x11, 0x00])
    }

    @Test func roundTripOfPseudoRandomData() {
        var state: UInt32 = 12345
        var rbsp: [UInt8] = []
        for _ in 0..<10_000 {
            state = state &* 1_103_515_245 &+ 12345
            // Many zeros and small values so that escapes are common.
            let r = UInt8(truncatingIfNeeded: state >> 16)
            rbsp.append(r < 128 ? 0 : r & 0x03)
        }
        rbsp.append(0x80)
        let payload = RBSP.addingEmulationPrevention(rbsp)
        #expect(payload.count > rbsp.count)
        // No start code prefix and no 00 00 0x (x ≤ 2) survives in the payload.
        for i in 0..<(payload.count - 2) {
            #expect(!(payload[i] == 0 && payload[i + 1] == 0 && payload[i + 2] <= 2))
        }
        #expect(RBSP.removingEmulationPrevention(payload[...]) == rbsp)
    }

    @Test func splitRejectsEmptyAndForbiddenBit() {
        #expect(throws: BitstreamError.self) { try RBSP.split(nalUnit: [][...]) }
        do {
            _ = try RBSP.split(nalUnit: [0x80, 0x00][...])
            Issue.record("forbidden_zero_bit accepted")
        } catch {
            #expect(error.code == .invalidValue)
        }
        let (header, rbsp) = try! RBSP.split(nalUnit: [0x67, 0x00, 0x00, 0x03, 0x01][...])
        #expect(header.nalUnitType == .sps)
        #expect(header.nalRefIdc == 3)
        #expect(rbsp == [0x00, 0x00, 0x01])
    }

    /// Byte-at-a-time reference of §7.3.1: a 03 after two zeros is dropped and restarts the zero count.
    static func referenceRemoval(_ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var zeros = 0
        for byte in payload {
            if zeros >= 2, byte == 0x03 {
                zeros = 0
                continue
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Random payloads made of 00, 03 and 01 only, so every escape pattern and overlap occurs; with limits too.
    @Test func removalMatchesReference() {
        var state: UInt32 = 99
        for length in [0, 1, 2, 3, 4, 5, 17, 300] {
            for _ in 0..<50 {
                let payload: [UInt8] = (0..<length).map { _ in
                    state = state &* 1_103_515_245 &+ 12345
                    return [0x00, 0x00, 0x03, 0x01][Int(state >> 16) & 3]
                }
                let expected = Self.referenceRemoval(payload)
                #expect(RBSP.removingEmulationPrevention(payload[...]) == expected, "\(payload)")
                for limit in [0, 1, 2, 5] {
                    #expect(RBSP.removingEmulationPrevention(payload[...], limit: limit) == Array(expected.prefix(limit)))
                }
            }
        }
    }
}
