import Testing

@testable import rtenc

/// The join-keyframe policy alone, in virtual time: frames at 30 fps, the sender's RTCP count as it would rise.
@Suite struct JoinKeyframesTests {
    /// Runs `frames` frames at 30 fps from t = 0; `rtcpAt` gives the RTCP count the sender reports before frame n;
    /// every frame the policy forces (and the first) is sent as an IDR. Returns the IDR frame numbers.
    static func run(interval: Double?, frames: Int, keyframesAlso: Set<Int> = [], rtcpAt: (Int) -> Int = { _ in 0 })
        -> (idrs: [Int], modes: [JoinKeyframes.Mode]) {
        var policy = JoinKeyframes(interval: interval)
        var idrs: [Int] = []
        var modes: [JoinKeyframes.Mode] = []
        for n in 0..<frames {
            let time = Double(n) / 30
            let forced = policy.forceKeyframe(at: time, rtcpPacketsReceived: rtcpAt(n))
            modes.append(policy.mode)
            if n == 0 || forced || keyframesAlso.contains(n) {
                idrs.append(n)
                policy.keyframeSent(at: time)
            }
        }
        return (idrs, modes)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var interval: Double?
        var frames: Int
        var keyframesAlso: Set<Int> = []
        /// Frames before which one more RTCP packet has arrived.
        var reportsBefore: [Int] = []
        var idrs: [Int]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "nobody reports: an IDR every 30 frames, exactly", interval: 1, frames: 121, idrs: [0, 30, 60, 90, 120]),
        Case(name: "off: only the first", interval: nil, frames: 121, idrs: [0]),
        Case(name: "half a second", interval: 0.5, frames: 46, idrs: [0, 15, 30, 45]),
        Case(name: "a report before the first join IDR: no join IDR at all", interval: 1, frames: 300,
             reportsBefore: [20], idrs: [0]),
        Case(name: "a report after two join IDRs stops them", interval: 1, frames: 300, reportsBefore: [70], idrs: [0, 30, 60]),
        Case(name: "a PLI-driven IDR restarts the interval", interval: 1, frames: 91, keyframesAlso: [45],
             idrs: [0, 30, 45, 75]),
        // Reports every 5 s (RFC 3550's slowest regular pace) keep the receiver counted for 20 s.
        Case(name: "a receiver reporting every 5 s stays counted", interval: 1, frames: 600,
             reportsBefore: [10, 160, 310, 460], idrs: [0]),
        // The last report before frame 100 (3.33 s); 10 s of silence later (frame 400) the join IDRs resume.
        Case(name: "a receiver silent for 10 s is taken as gone", interval: 1, frames: 461, reportsBefore: [10, 100],
             idrs: [0, 400, 430, 460]),
    ]

    @Test(arguments: cases)
    func keyframes(_ testCase: Case) {
        let result = Self.run(interval: testCase.interval, frames: testCase.frames, keyframesAlso: testCase.keyframesAlso) { n in
            testCase.reportsBefore.filter { $0 <= n }.count
        }
        #expect(result.idrs == testCase.idrs)
    }

    @Test func modeSaysWhichRuleApplies() {
        let result = Self.run(interval: 1, frames: 100) { $0 >= 50 ? 3 : 0 }
        #expect(result.modes[0..<50].allSatisfy { $0 == .joining })
        #expect(result.modes[50...].allSatisfy { $0 == .receiverReporting })
        #expect(Self.run(interval: nil, frames: 3).modes == [.off, .off, .off])
    }

    /// 1001/30000 s frames: 30 frame times of 0.0333667 s sum to a hair over 1 s, never to frame 31.
    @Test func ntscFrameTimesGiveOneIDREvery30Frames() {
        var policy = JoinKeyframes(interval: 1.001)
        var idrs: [Int] = []
        for n in 0..<91 {
            let time = Double(n) * 1001 / 30000
            if n == 0 || policy.forceKeyframe(at: time, rtcpPacketsReceived: 0) {
                idrs.append(n)
                policy.keyframeSent(at: time)
            }
        }
        #expect(idrs == [0, 30, 60, 90])
    }

    @Test(arguments: [("1", 1.0), ("0.5", 0.5), ("3600", 3600), ("off", nil)] as [(String, Double?)])
    func argumentParses(_ text: String, _ interval: Double?) throws {
        #expect(try JoinKeyframesArgument.parse(text).interval == interval)
    }

    @Test(arguments: ["0", "0.05", "3601", "-1", "nan", "inf", "fast", ""])
    func argumentOutOfRangeOrNoNumberIsRefused(_ text: String) {
        #expect(throws: OptionValueError("'\(text)' is not an interval", expected: "expected 0.1…3600 seconds, or off")) {
            try JoinKeyframesArgument.parse(text)
        }
    }
}
