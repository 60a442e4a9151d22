import MediaCore
import Testing

@Suite struct MediaTimeTests {
    @Test(arguments: [
        // value, timescale → new timescale = expected value (rounded to nearest, halves away from zero)
        (Int64(1), Int64(30), Int64(90_000), Int64(3000)),
        (1001, 30000, 90_000, 3003),
        (512, 15360, 90_000, 3000),
        (1, 3, 2, 1),               // 0.667 → 1
        (1, 4, 2, 1),               // 0.5 → 1 (half away from zero)
        (-1, 4, 2, -1),
        (Int64.max / 2, 1, 90_000, Int64.max), // clamps instead of trapping
    ])
    func converts(value: Int64, timescale: Int64, to newTimescale: Int64, expected: Int64) {
        #expect(MediaTime(value: value, timescale: timescale).converted(to: newTimescale).value == expected)
    }

    @Test func comparesAcrossTimescales() {
        let third = MediaTime(value: 1, timescale: 3)
        #expect(MediaTime(value: 30000, timescale: 90000) == third)
        #expect(Set([MediaTime(value: 30000, timescale: 90000), third]).count == 1)
        #expect(MediaTime(value: 29999, timescale: 90000) < third)
        #expect(MediaTime.zero == MediaTime(value: 0, timescale: 90000))
        #expect(Rational(30000, 1001).doubleValue > 29.97 && Rational(0, 0).doubleValue == 0)
    }
}
