import Testing
@testable import BitrateAdaptation

@Suite struct ScenarioTests {
    @Test func stepIsTheIssuesStep() throws {
        let step = try Scenario.step()
        #expect(step.changes == [.init(time: 0, bitRate: 2_000_000), .init(time: 4, bitRate: 500_000),
                                 .init(time: 8, bitRate: 4_000_000)])
        #expect(step.duration == 12)
    }

    @Test func targetAtBoundaries() throws {
        let step = try Scenario.step()
        #expect(step.target(at: 0) == 2_000_000)
        #expect(step.target(at: 3.999) == 2_000_000)
        #expect(step.target(at: 4) == 500_000)
        // 120 frames at 30 fps is 4 s, computed in floating point: it must land on the change.
        #expect(step.target(at: Double(120) / 30) == 500_000)
        #expect(step.target(at: 11.9) == 4_000_000)
        #expect(step.target(at: 100) == 4_000_000)
        #expect(step.target(at: -1) == 2_000_000)
        #expect(step.segmentEnd(0) == 4 && step.segmentEnd(2) == 12)
    }

    @Test func rampRisesInEqualStepsToItsEnd() throws {
        let ramp = try Scenario.ramp(from: 500_000, to: 4_000_000, lead: 2, over: 8, tail: 2, stepSeconds: 0.5)
        #expect(ramp.changes.first == .init(time: 0, bitRate: 500_000))
        #expect(ramp.changes.count == 1 + 16)
        #expect(ramp.changes.last == .init(time: 9.5, bitRate: 4_000_000))
        let rates = ramp.changes.map(\.bitRate)
        let increments = Set(zip(rates.dropFirst(), rates).map { $0 - $1 })
        #expect(increments == [218_750])  // 3.5 Mb/s / 16
        #expect(ramp.duration == 12)
    }

    @Test func squareAlternatesStartingHigh() throws {
        let square = try Scenario.squareWave(high: 2_000_000, low: 500_000, halfPeriod: 2, cycles: 2)
        #expect(square.changes.map(\.bitRate) == [2_000_000, 500_000, 2_000_000, 500_000])
        #expect(square.changes.map(\.time) == [0, 2, 4, 6])
        #expect(square.duration == 8)
    }

    @Test func namedScenarios() throws {
        #expect(try Scenario.named("step").name == "step")
        #expect(try Scenario.named("ramp").name == "ramp")
        #expect(try Scenario.named("square").name == "square")
        #expect(throws: AdaptationError.self) { try Scenario.named("sawtooth") }
    }

    @Test(arguments: [
        ([Scenario.Change(time: 1, bitRate: 100_000)], 2.0, AdaptationError.Code.invalidArgument),
        ([], 2.0, .invalidArgument),
        ([.init(time: 0, bitRate: 100_000), .init(time: 0, bitRate: 200_000)], 2.0, .invalidArgument),
        ([.init(time: 0, bitRate: 100_000), .init(time: 3, bitRate: 200_000)], 2.0, .invalidArgument),
        ([.init(time: 0, bitRate: 100_000)], .infinity, .invalidArgument),
        ([.init(time: 0, bitRate: 5_000)], 2.0, .outOfRange),
        ([.init(time: 0, bitRate: 100_000)], 4000.0, .outOfRange),
    ])
    func rejectsInvalidScenarios(changes: [Scenario.Change], duration: Double, code: AdaptationError.Code) {
        do {
            _ = try Scenario(name: "bad", changes: changes, duration: duration)
            Issue.record("accepted \(changes) for \(duration) s")
        } catch {
            #expect(error.code == code)
        }
    }

    @Test func rejectsBadRampAndSquareParameters() {
        #expect(throws: AdaptationError.self) { try Scenario.ramp(over: 0.1, stepSeconds: 0.5) }
        #expect(throws: AdaptationError.self) { try Scenario.squareWave(cycles: 0) }
    }
}
