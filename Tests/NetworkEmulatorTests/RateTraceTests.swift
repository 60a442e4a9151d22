import Testing
@testable import NetworkEmulator

struct RateTraceTests {
    @Test(arguments: [
        ("plain", "0,2000\n10,500\n", [(0.0, 2_000_000), (10.0, 500_000)]),
        ("header, comment, blank line, CRLF, spaces", "time_s,kbps\r\n# start fast\n\n0, 2000\r\n 2.5 ,0\n",
         [(0.0, 2_000_000), (2.5, 0)]),
        ("fractional kb/s", "0,0.5", [(0.0, 500)]),
    ])
    func parses(name: String, text: String, expected: [(Double, Int)]) throws {
        let trace = try RateTrace(csv: text)
        #expect(trace.points == expected.map { .init(time: .seconds($0.0), bitsPerSecond: $0.1) }, "\(name)")
    }

    @Test(arguments: [
        ("empty", "", NetworkEmulatorError.Code.invalidSetting, nil as Int?),
        ("header only", "time_s,kbps\n", .invalidSetting, nil),
        ("three fields", "0,100\n1,200,3\n", .invalidTrace, 2),
        ("words after data", "0,100\nfast,200\n", .invalidTrace, 2),
        ("time going back", "0,100\n5,200\n4,300\n", .invalidTrace, 3),
        ("same time twice", "0,100\n0,200\n", .invalidTrace, 2),
        ("negative rate", "0,-1\n", .invalidTrace, 1),
        ("negative time", "-1,100\n", .invalidTrace, 1),
        ("absurd rate", "0,1e12\n", .invalidTrace, 1),
        ("not a number", "0,nan\n", .invalidTrace, 1),
    ])
    func refuses(name: String, text: String, code: NetworkEmulatorError.Code, line: Int?) {
        let error = #expect(throws: NetworkEmulatorError.self, "\(name)") { try RateTrace(csv: text) }
        #expect(error?.code == code, "\(name)")
        #expect(error?.line == line, "\(name)")
    }

    @Test func transmissionWalksAcrossRateChanges() throws {
        let trace = try RateTrace(points: [.init(time: .zero, bitsPerSecond: 1000), .init(time: .seconds(1), bitsPerSecond: 0),
                                           .init(time: .seconds(2), bitsPerSecond: 4000)])
        #expect(trace.bitsPerSecond(at: .milliseconds(1500)) == 0)
        #expect(trace.transmissionEnd(start: .zero, bits: 500) == .milliseconds(500))
        // 500 bits by 1 s at 1000 b/s, nothing during the outage, 1500 more at 4000 b/s from 2 s.
        #expect(trace.transmissionEnd(start: .milliseconds(500), bits: 2000) == .milliseconds(2375))
        #expect(trace.transmissionEnd(start: .seconds(1), bits: 8) == .milliseconds(2002))
        let endsDark = try RateTrace(points: [.init(time: .zero, bitsPerSecond: 1000), .init(time: .seconds(1), bitsPerSecond: 0)])
        #expect(endsDark.transmissionEnd(start: .milliseconds(900), bits: 200) == nil)
    }
}
