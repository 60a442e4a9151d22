import Bitstream
import Testing

@Suite struct BitReaderTests {
    @Test func fixedWidthReads() throws {
        // 1010 1100  1111 0000  0000 0001
        var reader = BitReader([0xAC, 0xF0, 0x01])
        #expect(try reader.readFlag() == true)
        #expect(try reader.readBits(3) == 0b010)
        #expect(try reader.readBits(8) == 0b1100_1111)
        #expect(try reader.readBits(12) == 0b0000_0000_0001)
        #expect(reader.bitsLeft == 0)
    }

    @Test func sixtyFourBits() throws {
        let bytes: [UInt8] = [0xFF, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
        var reader = BitReader(bytes)
        try reader.skipBits(8)
        #expect(try reader.readBits64(64) == 0x0123_4567_89AB_CDEF)
        var other = BitReader(bytes)
        try other.skipBits(4)
        #expect(try other.readBits(32) == 0xF012_3456)
    }

    /// ue(v) codewords of §9.1, Table 9-2, with their values.
    static let expGolomb: [(bits: String, ue: UInt32, se: Int32)] = [
        ("1", 0, 0),
        ("010", 1, 1),
        ("011", 2, -1),
        ("00100", 3, 2),
        ("00101", 4, -2),
        ("00110", 5, 3),
        ("00111", 6, -3),
        ("0001000", 7, 4),
        ("000000011111111", 254, -127),
        ("00000000100000000", 255, 128),
    ]

    static func bytes(_ bits: String) -> [UInt8] {
        var writer = BitWriter()
        for c in bits { writer.writeFlag(c == "1") }
        return writer.bytes
    }

    @Test(arguments: expGolomb)
    func expGolombDecode(bits: String, ue: UInt32, se: Int32) throws {
        var reader = BitReader(Self.bytes(bits))
        #expect(try reader.readUE() == ue)
        #expect(reader.bitOffset == bits.count)
        var signed = BitReader(Self.bytes(bits))
        #expect(try signed.readSE() == se)
    }

    @Test(arguments: expGolomb)
    func expGolombEncode(bits: String, ue: UInt32, se: Int32) {
        var writer = BitWriter()
        writer.writeUE(ue)
        #expect(writer.bitCount == bits.count)
        #expect(writer.bytes == Self.bytes(bits))
        var signed = BitWriter()
        signed.writeSE(Int(se))
        #expect(signed.bytes == Self.bytes(bits))
    }

    @Test func largestUE() throws {
        // 2^32 − 2 has 31 leading zeros; 2^32 − 1 needs 32 zeros and a zero suffix.
        for value: UInt32 in [UInt32.max - 1, UInt32.max, 1 << 31, 12345] {
            var writer = BitWriter()
            writer.writeUE(value)
            var reader = BitReader(writer.bytes)
            #expect(try reader.readUE() == value)
        }
    }

    @Test func expGolombTooLong() {
        // 33 zeros then a one.
        var reader = BitReader([0, 0, 0, 0, 0x40, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        do {
            _ = try reader.readUE()
            Issue.record("33 leading zeros accepted")
        } catch {
            #expect(error.code == .expGolombTooLong)
        }
        // 32 zeros, a one and a non-zero suffix: codeNum ≥ 2^32.
        var over = BitReader([0, 0, 0, 0, 0x80, 0, 0, 0, 0x80])
        #expect(throws: BitstreamError.self) { try over.readUE() }
    }

    @Test func readsPastTheEndAreTruncated() {
        var reader = BitReader([0xFF])
        do {
            _ = try reader.readBits(9)
            Issue.record("read past end")
        } catch {
            #expect(error.code == .truncated)
            #expect(error.offset == 0)
            #expect(error.reason.contains("bit 0"))
        }
        var empty = BitReader([])
        #expect(throws: BitstreamError.self) { try empty.readFlag() }
        var zeros = BitReader([0x00, 0x00])
        do {
            _ = try zeros.readUE()
            Issue.record("ue(v) without its one bit")
        } catch {
            #expect(error.code == .truncated)
        }
        // A failed read of a prefix of a codeword leaves no trap behind: 0000 0001 then end.
        var cut = BitReader([0x01])
        #expect(throws: BitstreamError.self) { try cut.readUE() }
    }

    @Test func boundedReads() {
        var writer = BitWriter()
        writer.writeUE(32)
        writer.writeSE(-13)
        var reader = BitReader(writer.bytes)
        do {
            _ = try reader.readUE("seq_parameter_set_id", max: 31)
            Issue.record("32 accepted as sps id")
        } catch {
            #expect(error.code == .invalidValue)
        }
        #expect(throws: BitstreamError.self) { try reader.readSE("chroma_qp_index_offset", in: -12...12) }
    }

    /// more_rbsp_data() and rbsp_trailing_bits() (§7.2, §7.3.2.11).
    @Test func trailingBits() throws {
        // 1 1000000: one data bit, then the stop bit.
        var reader = BitReader([0b1100_0000])
        #expect(reader.moreRBSPData())
        #expect(try reader.readFlag())
        #expect(!reader.moreRBSPData())
        try reader.readTrailingBits()

        // Stop bit in the next byte, then cabac_zero_words.
        var padded = BitReader([0xFF, 0x80, 0x00, 0x00])
        try padded.skipBits(8)
        #expect(!padded.moreRBSPData())
        try padded.readTrailingBits()

        // Data after the trailing bits.
        var extra = BitReader([0x80, 0x01])
        do {
            try extra.readTrailingBits()
            Issue.record("data after trailing bits accepted")
        } catch {
            #expect(error.code == .trailingData)
        }
        // A zero where the stop bit should be.
        var noStop = BitReader([0x40])
        #expect(throws: BitstreamError.self) { try noStop.readTrailingBits() }
        // All-zero RBSP has no more data.
        #expect(!BitReader([0, 0]).moreRBSPData())
    }

    @Test func writerRoundTrip() throws {
        var writer = BitWriter()
        writer.writeBits(0x5, count: 3)
        writer.writeUE(1000)
        writer.writeSE(-1000)
        writer.writeBits(UInt64(0xDEAD_BEEF_0123_4567), count: 64)
        writer.writeFlag(true)
        writer.writeTrailingBits()
        #expect(writer.isByteAligned)
        var reader = BitReader(writer.bytes)
        #expect(try reader.readBits(3) == 5)
        #expect(try reader.readUE() == 1000)
        #expect(try reader.readSE() == -1000)
        #expect(try reader.readBits64(64) == 0xDEAD_BEEF_0123_4567)
        #expect(try reader.readFlag())
        try reader.readTrailingBits()
    }
}
