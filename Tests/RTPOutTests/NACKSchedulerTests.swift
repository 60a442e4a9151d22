import Testing
@testable import RTP
@testable import RTPOut

struct NACKSchedulerTests {
    static func at(_ milliseconds: Int64) -> RTPInstant { RTPInstant(nanosecondsSinceEpoch: milliseconds * 1_000_000) }

    /// A hole is NACKed when first seen, again after each retry interval, at most `maxRequests` times, and
    /// forgotten once filled.
    @Test func requestsAtOnceThenRetriesThenStops() {
        var scheduler = NACKScheduler(retryInterval: .milliseconds(100), maxRequests: 3)
        #expect(scheduler.due(missing: [65_537, 65_538], now: Self.at(0)) == [1, 2])  // wire numbers wrap
        #expect(scheduler.retriesDue == 0)
        #expect(scheduler.due(missing: [65_537, 65_538], now: Self.at(50)) == [])
        #expect(scheduler.due(missing: [65_538, 65_540], now: Self.at(60)) == [4])  // 65537 arrived; 65540 is new
        #expect(scheduler.retriesDue == 0)
        #expect(scheduler.due(missing: [65_538, 65_540], now: Self.at(100)) == [2])
        #expect(scheduler.retriesDue == 1)
        #expect(scheduler.due(missing: [65_538, 65_540], now: Self.at(200)) == [2, 4])
        #expect(scheduler.retriesDue == 2)
        #expect(scheduler.due(missing: [65_538, 65_540], now: Self.at(300)) == [4])  // 65538 had its three
        #expect(scheduler.due(missing: [65_538, 65_540], now: Self.at(400)) == [])
        #expect(scheduler.due(missing: [65_537], now: Self.at(500)) == [1])  // a new hole at a reused number
    }

    @Test func reorderBufferReportsOpenHoles() {
        var buffer = ReorderBuffer<Int>(window: 8, maxDelay: .milliseconds(100))
        var released: [Int] = []
        func push(_ sequenceNumber: UInt16, _ ms: Int64) {
            buffer.push(Int(sequenceNumber), sequenceNumber: sequenceNumber, arrival: Self.at(ms)) {
                if case .packet(let value, _) = $0 { released.append(value) }
            }
        }
        push(100, 0)
        #expect(buffer.missing == [])
        push(103, 1)
        push(105, 2)
        #expect(buffer.missing == [101, 102, 104])
        push(102, 3)  // a retransmission fills one hole
        #expect(buffer.missing == [101, 104])
        // 102, first behind the hole at 101, came at 3 ms: at 103 ms it has waited 100 ms and 101 is given up.
        buffer.expire(now: Self.at(103)) { if case .packet(let value, _) = $0 { released.append(value) } }
        #expect(buffer.missing == [104])
        buffer.expire(now: Self.at(103)) { if case .packet(let value, _) = $0 { released.append(value) } }
        #expect(buffer.missing == [])
        #expect(released == [100, 102, 103, 105])
    }
}
