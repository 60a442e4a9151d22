import Testing
@testable import CongestionSimulation

struct EventQueueTests {
    /// Events come out by time, and at equal times in the order they were scheduled, whatever the heap's shape.
    @Test func ordersByTimeThenInsertion() {
        var queue = EventQueue<String>()
        let table: [(Int64, String)] = [(30, "c1"), (10, "a1"), (20, "b1"), (10, "a2"), (30, "c2"), (0, "z"), (10, "a3"), (20, "b2")]
        for (time, name) in table { queue.schedule(name, at: time) }
        var out: [String] = []
        while let (_, name) = queue.popNext() { out.append(name) }
        #expect(out == ["z", "a1", "a2", "a3", "b1", "b2", "c1", "c2"])
        #expect(queue.isEmpty && queue.nextTime == nil)
    }

    /// 10 000 random times with many ties: the output is the stable sort of the input.
    @Test func matchesAStableSortOfRandomTimes() {
        var random = SimulationRandom(seed: 99)
        var queue = EventQueue<Int>()
        var input: [(Int64, Int)] = []
        for i in 0 ..< 10_000 {
            let time = Int64(random.next32() % 500)
            input.append((time, i))
            queue.schedule(i, at: time)
        }
        let expected = input.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element.1)
        var out: [Int] = []
        while let (_, i) = queue.popNext() { out.append(i) }
        #expect(out == expected)
    }
}

struct SimulationRandomTests {
    /// PCG32's reference output (pcg32-demo: pcg32_srandom_r(&rng, 42, 54)).
    @Test func reproducesThePCG32ReferenceSequence() {
        var random = SimulationRandom(seed: 42, stream: 54)
        let out = (0 ..< 6).map { _ in random.next32() }
        #expect(out == [0xA15C_02B7, 0x7B47_F409, 0xBA1D_3330, 0x83D2_F293, 0xBFA4_784B, 0xCBED_606E])
    }

    @Test(arguments: [(1.0, 0.0), (2.0, 0.693_147_180_559_945_3), (0.5, -0.693_147_180_559_945_3),
                      (10.0, 2.302_585_092_994_046), (1e-9, -20.723_265_836_946_41), (123_456.789, 11.723_646_487_185_881)])
    func naturalLogarithm(x: Double, expected: Double) {
        #expect(abs(SimulationRandom.naturalLogarithm(x) - expected) < 1e-12)
    }

    /// The moments of the derived draws, over 200 000 samples.
    @Test func normalAndExponentialDrawsHaveTheirMoments() {
        var random = SimulationRandom(seed: 5)
        let n = 200_000
        var sum = 0.0, squares = 0.0, exponential = 0.0
        for _ in 0 ..< n {
            let z = random.standardNormal()
            sum += z
            squares += z * z
            exponential += random.exponential(mean: 10)
        }
        #expect(abs(sum / Double(n)) < 0.01)
        #expect(abs(squares / Double(n) - 1) < 0.02)
        #expect(abs(exponential / Double(n) - 10) < 0.1)
    }
}
