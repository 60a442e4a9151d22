import CongestionControl
import MediaCore
import RTP
import Testing

@Suite struct BitrateControllerTests {
    /// One step of a script: an event at the next millisecond, or a poll and the decision it must return.
    enum Step: Sendable, CustomStringConvertible {
        case limit(UInt64)
        case keyframeRequest
        case keyframeSent
        case bounds(ceiling: Int, floor: Int)
        /// Poll; expect this allocation (nil: none), from `previous`, and whether a keyframe is forced.
        case decide(Int?, previous: Int, keyframe: Bool = false)
        /// Poll; expect nothing to do.
        case nothing

        var description: String {
            switch self {
            case .limit(let bps): "limit \(bps)"
            case .keyframeRequest: "PLI"
            case .keyframeSent: "IDR sent"
            case .bounds(let ceiling, let floor): "bounds \(floor)…\(ceiling)"
            case .decide(let rate, let previous, let keyframe): "decide \(rate.map(String.init) ?? "-") from \(previous)\(keyframe ? " + IDR" : "")"
            case .nothing: "nothing"
            }
        }
    }

    struct Script: Sendable, CustomTestStringConvertible {
        let name: String
        var ceiling = 1_000_000
        var floor = BitrateBounds.defaultFloor
        let steps: [Step]
        var testDescription: String { name }
    }

    static let scripts: [Script] = [
        Script(name: "no input, no decision", steps: [.nothing, .nothing]),
        Script(name: "REMB down", steps: [.limit(400_000), .decide(400_000, previous: 1_000_000), .nothing]),
        Script(name: "REMB down then up", steps: [
            .limit(400_000), .decide(400_000, previous: 1_000_000),
            .limit(800_000), .decide(800_000, previous: 400_000),
        ]),
        // The early return of the old CLI left the pacer at 2.5 × the raw REMB here: the decision now re-asserts the
        // ceiling for the encoder and the pacer alike.
        Script(name: "limit above the ceiling", steps: [.limit(5_000_000), .decide(1_000_000, previous: 1_000_000)]),
        Script(name: "back up to the ceiling", steps: [
            .limit(300_000), .decide(300_000, previous: 1_000_000),
            .limit(UInt64.max), .decide(1_000_000, previous: 300_000),
        ]),
        Script(name: "limit below the floor", steps: [.limit(3_000), .decide(10_000, previous: 1_000_000)]),
        Script(name: "a limit of 0", steps: [.limit(0), .decide(10_000, previous: 1_000_000)]),
        Script(name: "own floor", floor: 50_000, steps: [.limit(20_000), .decide(50_000, previous: 1_000_000)]),
        Script(name: "ceiling below the floor wins", ceiling: 5_000, steps: [.limit(1_000), .decide(5_000, previous: 5_000)]),
        Script(name: "repeated equal limits", steps: [
            .limit(400_000), .decide(400_000, previous: 1_000_000),
            .limit(400_000), .decide(400_000, previous: 400_000),
            .limit(400_000), .limit(400_000), .decide(400_000, previous: 400_000), .nothing,
        ]),
        Script(name: "the tightest limit between two frames wins", steps: [
            .limit(600_000), .limit(400_000), .limit(500_000), .decide(400_000, previous: 1_000_000), .nothing,
        ]),
        Script(name: "a limit holds until the next one", steps: [
            .limit(400_000), .decide(400_000, previous: 1_000_000), .nothing, .keyframeRequest,
            .decide(nil, previous: 400_000, keyframe: true),
        ]),
        Script(name: "keyframe requests coalesce", steps: [
            .keyframeRequest, .keyframeRequest, .keyframeRequest, .decide(nil, previous: 1_000_000, keyframe: true),
            .nothing,
        ]),
        Script(name: "keyframe and limit in one decision", steps: [
            .keyframeRequest, .limit(250_000), .keyframeRequest, .decide(250_000, previous: 1_000_000, keyframe: true),
            .nothing,
        ]),
        Script(name: "a keyframe sent answers the pending request", steps: [
            .keyframeRequest, .keyframeSent, .nothing, .keyframeRequest, .decide(nil, previous: 1_000_000, keyframe: true),
        ]),
        Script(name: "a keyframe sent leaves the rate input", steps: [
            .limit(700_000), .keyframeRequest, .keyframeSent, .decide(700_000, previous: 1_000_000),
        ]),
        Script(name: "new bounds re-clamp the limit in force", steps: [
            .limit(800_000), .decide(800_000, previous: 1_000_000),
            .bounds(ceiling: 500_000, floor: 10_000), .decide(500_000, previous: 800_000),
            .bounds(ceiling: 2_000_000, floor: 10_000), .decide(800_000, previous: 500_000),
            .bounds(ceiling: 2_000_000, floor: 900_000), .decide(900_000, previous: 800_000),
        ]),
        Script(name: "new bounds before any limit", steps: [
            .bounds(ceiling: 3_000_000, floor: 10_000), .decide(3_000_000, previous: 1_000_000),
        ]),
    ]

    @Test(arguments: scripts)
    func script(_ script: Script) throws {
        let start = Instant(nanoseconds: 5_000_000_000)
        var controller = BitrateController(
            bounds: try BitrateBounds(ceiling: script.ceiling, floor: script.floor), at: start)
        #expect(controller.current == BitrateAllocation(bitsPerSecond: script.ceiling))
        var now = start
        for (index, step) in script.steps.enumerated() {
            now += .milliseconds(1)
            switch step {
            case .limit(let bps): controller.handle(.peerLimit(bitsPerSecond: bps), at: now)
            case .keyframeRequest: controller.handle(.keyframeRequest, at: now)
            case .keyframeSent: controller.handle(.keyframeSent, at: now)
            case .bounds(let ceiling, let floor): controller.handle(.bounds(try BitrateBounds(ceiling: ceiling, floor: floor)), at: now)
            case .nothing:
                let decision = controller.poll(at: now)
                #expect(decision == nil, "step \(index) (\(step)): \(String(describing: decision))")
            case .decide(let rate, let previous, let keyframe):
                let polled = controller.poll(at: now)
                let decision = try #require(polled, "step \(index) (\(step)): no decision")
                let expected = BitrateDecision(
                    allocation: rate.map { BitrateAllocation(bitsPerSecond: $0) },
                    previous: BitrateAllocation(bitsPerSecond: previous), forceKeyframe: keyframe)
                #expect(decision == expected, "step \(index) (\(step))")
                #expect(decision.changesRate == (rate != nil && rate != previous), "step \(index) (\(step))")
                if let rate {
                    #expect(controller.current == BitrateAllocation(bitsPerSecond: rate), "step \(index) (\(step))")
                    // Encoder and pacer are decided together: never one without the other.
                    #expect(decision.allocation?.pacingBitRate == UInt64(rate))
                }
            }
        }
    }

    @Test(arguments: [
        (0, 10_000, "a bit rate ceiling of 0 b/s; it must be more than 0"),
        (-5, 10_000, "a bit rate ceiling of -5 b/s; it must be more than 0"),
        (1_000_000, 0, "a bit rate floor of 0 b/s; it must be more than 0"),
        (1_000_000, -1, "a bit rate floor of -1 b/s; it must be more than 0"),
    ])
    func boundsRefuseRatesThatCannotWork(ceiling: Int, floor: Int, reason: String) {
        #expect {
            _ = try BitrateBounds(ceiling: ceiling, floor: floor)
        } throws: { error in
            guard let error = error as? CongestionControlError else { return false }
            return error.code == .invalidArgument && error.reason == reason
                && error.description == "invalidArgument: \(reason)"
        }
    }

    @Test(arguments: [
        // (limit, ceiling, floor, clamped)
        (400_000 as UInt64, 1_000_000, 10_000, 400_000),
        (0, 1_000_000, 10_000, 10_000),
        (UInt64.max, 1_000_000, 10_000, 1_000_000),
        (UInt64(Int.max) + 1, Int.max, 10_000, Int.max),
        (9_999, 1_000_000, 10_000, 10_000),
        (1_000_001, 1_000_000, 10_000, 1_000_000),
        (1, 5_000, 10_000, 5_000),
    ])
    func clamp(limit: UInt64, ceiling: Int, floor: Int, expected: Int) throws {
        #expect(try BitrateBounds(ceiling: ceiling, floor: floor).clamp(limit) == expected)
    }

    /// The policy is a seam: the controller asks it at start and after each rate input, and passes its answer on
    /// whole — a policy that paces above the encoder's target (as a congestion controller probing would) keeps both.
    @Test func aPolicyOfItsOwnDecidesBothRates() throws {
        struct Probing: BitrateControlPolicy {
            let name = "probing"
            var lastLimit: UInt64 = 0
            mutating func observe(peerLimit bitsPerSecond: UInt64, at now: Instant) { lastLimit = bitsPerSecond }
            mutating func allocation(within bounds: BitrateBounds, at now: Instant) -> BitrateAllocation {
                let target = lastLimit == 0 ? bounds.ceiling / 2 : bounds.clamp(lastLimit)
                return BitrateAllocation(encoderBitRate: target, pacingBitRate: UInt64(target) * 3 / 2)
            }
        }
        var controller = BitrateController(bounds: try BitrateBounds(ceiling: 2_000_000), policy: Probing(), at: .zero)
        #expect(controller.policyName == "probing")
        #expect(controller.current == BitrateAllocation(encoderBitRate: 1_000_000, pacingBitRate: 1_500_000))
        controller.handle(.peerLimit(bitsPerSecond: 600_000), at: Instant(nanoseconds: 10))
        let decision = controller.poll(at: Instant(nanoseconds: 20))
        #expect(decision?.allocation == BitrateAllocation(encoderBitRate: 600_000, pacingBitRate: 900_000))
        let none = controller.poll(at: Instant(nanoseconds: 30))
        #expect(none == nil)
    }

    /// Encoded frame sizes reach the policy with their time and have it asked again (for the next frame's budget);
    /// what it answers differently is a decision, as after a process interval. (Before the live frame budget, a
    /// frame asked for nothing: changed deliberately.)
    @Test func framesAndProcessIntervalsReachThePolicy() throws {
        struct Budget: BitrateControlPolicy {
            let name = "budget"
            var frames: [(Int, Bool, Instant)] = []
            mutating func observe(peerLimit bitsPerSecond: UInt64, at now: Instant) {}
            mutating func observe(encodedFrameSize size: Int, isKeyframe: Bool, at now: Instant) { frames.append((size, isKeyframe, now)) }
            mutating func allocation(within bounds: BitrateBounds, at now: Instant) -> BitrateAllocation {
                // Half the ceiling until a keyframe was seen, then its size × 8 per second.
                BitrateAllocation(bitsPerSecond: frames.last { $0.1 }.map { bounds.clamp(UInt64($0.0 * 8)) } ?? bounds.ceiling / 2)
            }
        }
        var controller = BitrateController(bounds: try BitrateBounds(ceiling: 2_000_000), policy: Budget(), at: .zero)
        controller.handle(.encodedFrame(bytes: 50_000, isKeyframe: true), at: Instant(nanoseconds: 5))
        let polled = controller.poll(at: Instant(nanoseconds: 6))
        let decision = try #require(polled)
        #expect(decision.allocation == BitrateAllocation(bitsPerSecond: 400_000) && decision.changesRate)
        controller.handle(.processInterval, at: Instant(nanoseconds: 7))
        #expect(controller.poll(at: Instant(nanoseconds: 8)) == nil, "the same answer is no decision")
        controller.handle(.encodedFrame(bytes: 20_000, isKeyframe: false), at: Instant(nanoseconds: 9))
        #expect(controller.poll(at: Instant(nanoseconds: 10)) == nil, "nor after a frame")
    }

    /// A policy that answers with a per-frame budget at unchanged rates: no decision (nothing to reconfigure), but
    /// `current.frameByteLimit` is its latest word, read before each frame. Case table: the policy's (budget, skip)
    /// → the limit the encode loop sees.
    @Test(arguments: [(nil, false, nil), (1_200, false, 1_200), (0, false, 0), (nil, true, 0), (5_000, true, 0)] as [(Int?, Bool, Int?)])
    func theFrameBudgetIsTheLatestAnswer(budget: Int?, skip: Bool, limit: Int?) throws {
        struct Budgeting: BitrateControlPolicy {
            let name = "budgeting"
            var answer: (Int?, Bool) = (nil, false)
            var framesSeen = 0
            mutating func observe(peerLimit bitsPerSecond: UInt64, at now: Instant) {}
            mutating func observe(encodedFrameSize size: Int, isKeyframe: Bool, at now: Instant) { framesSeen += 1 }
            mutating func allocation(within bounds: BitrateBounds, at now: Instant) -> BitrateAllocation {
                // The budget is decided from the second frame on.
                framesSeen < 2 ? BitrateAllocation(bitsPerSecond: 500_000)
                    : BitrateAllocation(encoderBitRate: 500_000, pacingBitRate: 500_000, frameBudgetBytes: answer.0, skipNextFrame: answer.1)
            }
        }
        var controller = BitrateController(bounds: try BitrateBounds(ceiling: 1_000_000),
                                           policy: Budgeting(answer: (budget, skip)), at: .zero)
        controller.handle(.encodedFrame(bytes: 3_000, isKeyframe: true), at: Instant(nanoseconds: 33))
        #expect(controller.poll(at: Instant(nanoseconds: 34)) == nil && controller.current.frameByteLimit == nil)
        controller.handle(.encodedFrame(bytes: 2_000, isKeyframe: false), at: Instant(nanoseconds: 66))
        #expect(controller.poll(at: Instant(nanoseconds: 67)) == nil, "the same rates: no decision")
        #expect(controller.current.frameByteLimit == limit)
        #expect(controller.current.hasSameRates(as: BitrateAllocation(bitsPerSecond: 500_000)))
    }

    /// Sent packets reach the policy's `observe(sent:)` in the order given, and ask for no decision.
    @Test func sentPacketsReachThePolicyInOrder() throws {
        struct Recording: BitrateControlPolicy {
            let name = "recording"
            var sent: [Int64] = []
            mutating func observe(peerLimit bitsPerSecond: UInt64, at now: Instant) {}
            mutating func observe(sent packet: SentPacket) { sent.append(packet.sequenceNumber) }
            mutating func allocation(within bounds: BitrateBounds, at now: Instant) -> BitrateAllocation {
                BitrateAllocation(bitsPerSecond: 100_000 + sent.count)  // moves with every packet heard
            }
        }
        var controller = BitrateController(bounds: try BitrateBounds(ceiling: 1_000_000), policy: Recording(), at: .zero)
        let packets = (0 ..< 5).map { SentPacket(sequenceNumber: Int64($0), sendTime: Instant(nanoseconds: Int64($0)), size: 1200) }
        controller.handle(.packetsSent(Array(packets[0 ..< 3])), at: Instant(nanoseconds: 10))
        controller.handle(.packetsSent(Array(packets[3...])), at: Instant(nanoseconds: 11))
        #expect(controller.poll(at: Instant(nanoseconds: 12)) == nil, "sent packets alone ask for no decision")
        controller.handle(.processInterval, at: Instant(nanoseconds: 13))
        #expect(controller.poll(at: Instant(nanoseconds: 14))?.allocation == BitrateAllocation(bitsPerSecond: 100_005))
    }
}
