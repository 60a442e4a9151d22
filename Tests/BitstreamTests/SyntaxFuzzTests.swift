import Bitstream
import Testing

/// Hostile input: random bytes and bit-flipped real parameter sets and slices go through every parser and the
/// access-unit splitter. Each either parses or throws a BitstreamError; none may trap (a trap fails the run).
@Suite struct SyntaxFuzzTests {
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            // SplitMix64: deterministic, so a failure can be replayed.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    static func exercise(_ nal: [UInt8], sets: H264.ParameterSets) {
        _ = try? H264.SequenceParameterSet(nalUnit: nal[...])
        _ = try? H264.PictureParameterSet(nalUnit: nal[...], sequenceParameterSets: sets.sequenceParameterSets)
        _ = try? H264.SliceHeader(nalUnit: nal[...], parameterSets: sets)
    }

    @Test func randomAndMutatedInput() throws {
        var random = Random(state: 2026)
        var sets = H264.ParameterSets()
        try sets.update(nalUnit: SPSTests.x264High[...])
        try sets.update(nalUnit: PPSTests.x264High[...])
        let seeds: [[UInt8]] = [
            SPSTests.x264Baseline, SPSTests.x264Main, SPSTests.x264High, PPSTests.x264High,
            SliceHeaderTests.nal(0x65) { w in
                w.writeUE(0); w.writeUE(7); w.writeUE(0); w.writeBits(0, count: 4); w.writeUE(0)
                w.writeBits(0, count: 6); w.writeFlag(false); w.writeFlag(false); w.writeSE(3); w.writeUE(0)
            },
        ]
        var splitter = H264.AccessUnitSplitter()
        for round in 0..<3000 {
            var nal: [UInt8]
            if round % 3 == 0 {
                nal = (0..<(1 + random.below(40))).map { _ in random.byte() }
                nal[0] = [0x67, 0x68, 0x65, 0x41, 0x01][random.below(5)]
            } else {
                nal = seeds[random.below(seeds.count)]
                for _ in 0..<(1 + random.below(4)) {
                    let bit = random.below(nal.count * 8 - 8) + 8  // keep the header byte
                    nal[bit / 8] ^= 0x80 >> UInt8(bit % 8)
                }
                if random.below(4) == 0 { nal.removeLast(random.below(nal.count - 1)) }
            }
            Self.exercise(nal, sets: sets)
            _ = splitter.append(nal[...])
        }
        _ = splitter.flush()
    }
}
