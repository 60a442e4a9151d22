import Testing
@testable import BitrateAdaptation

@Suite struct TraceCSVTests {
    static let valid = """
        # synthetic LTE-like trace
        time_s,target_kbps
        0,1800
        0.5, 1650.5
        1.0,900

        1.5,2400
        """

    @Test func parsesHeaderCommentsBlankLinesAndSpaces() throws {
        let scenario = try TraceCSV.parse(Self.valid, name: "lte")
        #expect(scenario.name == "lte")
        #expect(scenario.changes.map(\.time) == [0, 0.5, 1.0, 1.5])
        #expect(scenario.changes.map(\.bitRate) == [1_800_000, 1_650_500, 900_000, 2_400_000])
        // The last row holds for the gap before it.
        #expect(scenario.duration == 2.0)
    }

    @Test func acceptsCRLFAndNoHeader() throws {
        let scenario = try TraceCSV.parse("0,500\r\n2,700\r\n")
        #expect(scenario.changes.map(\.bitRate) == [500_000, 700_000])
        #expect(scenario.duration == 4)
    }

    @Test func oneRowHoldsForOneSecond() throws {
        #expect(try TraceCSV.parse("0,100").duration == 1)
    }

    @Test(arguments: [
        // (input, code, line)
        ("", AdaptationError.Code.emptyTrace, nil as Int?),
        ("# only a comment\n\n", .emptyTrace, nil),
        ("time_s,target_kbps\n", .emptyTrace, nil),
        ("0,100,7", .wrongFieldCount, 1),
        ("0;100", .wrongFieldCount, 1),
        ("0,100\n1", .wrongFieldCount, 2),
        ("0,abc", .invalidNumber, 1),
        ("0,100\nx,200", .invalidNumber, 2),
        ("0,nan", .invalidNumber, 1),
        ("0,inf", .invalidNumber, 1),
        ("0,0x10", .invalidNumber, 1),
        ("0,", .invalidNumber, 1),
        ("time_s,target_kbps\ntime_s,target_kbps", .invalidNumber, 2),  // a header only as the first row
        ("0.5,100", .timeNotIncreasing, 1),  // must start at 0
        ("0,100\n1,200\n1,300", .timeNotIncreasing, 3),
        ("0,100\n2,200\n1,300", .timeNotIncreasing, 3),
        ("0,5", .outOfRange, 1),  // 5 kb/s < 10 kb/s
        ("0,-100", .outOfRange, 1),
        ("0,100001", .outOfRange, 1),  // > 100 Mb/s
        ("0,100\n3601,100", .outOfRange, 2),
    ])
    func rejectsBadInput(input: String, code: AdaptationError.Code, line: Int?) {
        let error = #expect(throws: AdaptationError.self) { try TraceCSV.parse(input) }
        #expect(error?.code == code)
        #expect(error?.line == line)
    }

    @Test func boundsSize() {
        let huge = String(repeating: "#", count: TraceCSV.maximumBytes + 1)
        let error = #expect(throws: AdaptationError.self) { try TraceCSV.parse(huge) }
        #expect(error?.code == .limitExceeded)
    }

    @Test func boundsRows() {
        var text = ""
        for index in 0...TraceCSV.maximumRows { text += "\(Double(index) * 0.01),100\n" }
        do {
            _ = try TraceCSV.parse(text)
            Issue.record("a trace of \(TraceCSV.maximumRows + 1) rows parsed")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.line == TraceCSV.maximumRows + 1)
        }
    }

    /// Prefixes of a CSV are often CSV themselves, so the drip-feed rule here is: every prefix either parses into
    /// the first rows of the whole (their values unchanged or the last one cut short) or fails with a typed error —
    /// never a crash, never a row that was not in the input.
    @Test func everyPrefixParsesCleanlyOrFailsTyped() throws {
        let whole = try TraceCSV.parse(Self.valid)
        let bytes = Array(Self.valid.utf8)
        for length in 0..<bytes.count {
            let prefix = String(decoding: bytes[..<length], as: UTF8.self)
            do {
                let scenario = try TraceCSV.parse(prefix)
                #expect(scenario.changes.count <= whole.changes.count)
                for (got, expected) in zip(scenario.changes, whole.changes) { #expect(got.time == expected.time) }
            } catch {
                #expect([.emptyTrace, .wrongFieldCount, .invalidNumber, .outOfRange].contains(error.code))
            }
        }
    }

    @Test func formatRoundTrips() throws {
        for scenario in [try Scenario.step(), try Scenario.ramp(), try Scenario.squareWave(), try TraceCSV.parse(Self.valid)] {
            let back = try TraceCSV.parse(TraceCSV.format(scenario))
            #expect(back.changes == scenario.changes)
        }
    }

    @Test func committedExampleTraceParses() throws {
        let path = #filePath.replacingOccurrences(
            of: "Tests/BitrateAdaptationTests/TraceCSVTests.swift", with: "bench/traces/synthetic-lte.csv")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let scenario = try TraceCSV.parse(text)
        #expect(scenario.duration >= 10)
        #expect(scenario.changes.allSatisfy { Scenario.bitRateRange.contains($0.bitRate) })
    }
}
