import CongestionControl

/// What the per-frame decisions (`FrameDecider`) came to, as one JSON object under `frames` in every live command's
/// `--stats-json` line (`stream`, `stream --whip`, `serve`), so that the two encode loops report skips and budgets in
/// one shape: `{"skipped_controller": 0, "skipped_queue": 3, "queue_flushes": 0, "budgeted": 120,
/// "budget_overruns": 2, "longest_skip_ms": 66.7, "queue_ms": 12.5}` (`queue_ms`: the worst pacer queue's expected
/// time at the last decision, null while nothing is paced).
struct FrameDecisionCounts: Encodable, Equatable {
    var skippedController = 0
    var skippedQueue = 0
    var queueFlushes = 0
    var budgeted = 0
    var budgetOverruns = 0
    var longestSkipMs = 0.0
    var queueMs: Double?

    enum CodingKeys: String, CodingKey {
        case skippedController = "skipped_controller"
        case skippedQueue = "skipped_queue"
        case queueFlushes = "queue_flushes"
        case budgeted
        case budgetOverruns = "budget_overruns"
        case longestSkipMs = "longest_skip_ms"
        case queueMs = "queue_ms"
    }

    init() {}

    init(_ statistics: FrameDecider.Statistics, queueTime: Duration?) {
        skippedController = statistics.skippedByController
        skippedQueue = statistics.skippedByQueue
        queueFlushes = statistics.flushes
        budgeted = statistics.budgeted
        budgetOverruns = statistics.budgetOverruns
        longestSkipMs = Self.milliseconds(statistics.longestSkipRun) ?? 0
        queueMs = Self.milliseconds(queueTime)
    }

    /// Milliseconds to 0.1 ms.
    static func milliseconds(_ duration: Duration?) -> Double? {
        duration.map { (Double($0.nanoseconds) / 1e5).rounded() / 10 }
    }

    /// `queue_ms` is always present (null while nothing is paced).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(skippedController, forKey: .skippedController)
        try container.encode(skippedQueue, forKey: .skippedQueue)
        try container.encode(queueFlushes, forKey: .queueFlushes)
        try container.encode(budgeted, forKey: .budgeted)
        try container.encode(budgetOverruns, forKey: .budgetOverruns)
        try container.encode(longestSkipMs, forKey: .longestSkipMs)
        if let queueMs { try container.encode(queueMs, forKey: .queueMs) } else { try container.encodeNil(forKey: .queueMs) }
    }
}
