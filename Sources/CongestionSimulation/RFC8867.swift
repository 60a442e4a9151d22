/// RFC 8867's test cases (§5.1–5.8) as data, with the parameters design note §1b assembled from Cisco's ns-3 RMCAT
/// suite, pion's runner and a netem script quoting the RFC: media range R_min 150 kb/s, R_max 1.5 Mb/s, R_init
/// 150 kb/s; one-way propagation 50 ms; a drop-tail queue of 300 ms (time to drain, RFC 8868 §4.3); no loss, no
/// jitter unless a variant says so. "Mb/s" are 10^6 b/s (ns-3 counts 2^20). Selected by name (`5.1`, `5.6-1000`).
public enum RFC8867 {
    public static let defaultDelay: Int64 = 50_000_000
    public static let defaultQueue: Int64 = 300_000_000

    /// Every case, by name, in the catalogue's order.
    public static let names = ["5.1", "5.1-100ms", "5.1-short", "5.2", "5.3", "5.4", "5.5", "5.6", "5.6-1000", "5.6-cubic", "5.6-cubic-1000", "5.7", "5.8"]

    public static func scenario(named name: String) throws(SimulationError) -> Scenario {
        let s = seconds
        switch name {
        case "5.1", "5.1-100ms":
            // §5.1 Variable available capacity with a single flow: 1.0, 2.5, 0.6, 1.0 × 1 Mb/s at 0/40/60/80 s.
            let delay = name == "5.1" ? defaultDelay : 100_000_000
            return Scenario(
                name: name, duration: s(100),
                forward: .init(capacity: .schedule(try .ratios(reference: 1e6, [(0, 1.0), (40, 2.5), (60, 0.6), (80, 1.0)])),
                               queueLimit: .time(defaultQueue)),
                media: [try media(delay: delay, from: 0, to: s(100))])
        case "5.1-short":
            // §5.1's four phases in 30 s (not an RFC case): 1.0, 2.5, 0.6, 1.0 × 1 Mb/s at 0/9/16/23 s — each long enough
            // for a static bin after the 5 s of settling — for a real-time run in CI (`rtenc relay`, sim vs real).
            return Scenario(
                name: name, duration: s(30),
                forward: .init(capacity: .schedule(try .ratios(reference: 1e6, [(0, 1.0), (9, 2.5), (16, 0.6), (23, 1.0)])),
                               queueLimit: .time(defaultQueue)),
                media: [try media(from: 0, to: s(30))])
        case "5.2":
            // §5.2 Variable available capacity with multiple flows: 2 flows, × 2 Mb/s.
            return Scenario(
                name: name, duration: s(125),
                forward: .init(capacity: .schedule(try .ratios(reference: 2e6, [(0, 2.0), (25, 1.0), (50, 1.75), (75, 0.5), (100, 1.0)])),
                               queueLimit: .time(defaultQueue)),
                media: [try media(from: 0, to: s(125)), try media(from: 0, to: s(125))])
        case "5.3":
            // §5.3 Congested feedback link with bi-directional media: one flow each way over its own schedule.
            return Scenario(
                name: name, duration: s(100),
                forward: .init(capacity: .schedule(try .ratios(reference: 1e6, [(0, 2.0), (20, 1.0), (40, 0.5), (60, 2.0)])),
                               queueLimit: .time(defaultQueue)),
                backward: .init(capacity: .schedule(try .ratios(reference: 1e6, [(0, 2.0), (35, 0.8), (70, 2.0)])),
                                queueLimit: .time(defaultQueue)),
                media: [try media(from: 0, to: s(100)), try media(direction: 1, from: 0, to: s(100))])
        case "5.4":
            // §5.4 Competing media flows with the same algorithm: 3.5 Mb/s, flows join at 0, 20 and 40 s.
            return Scenario(
                name: name, duration: s(120), forward: .init(capacity: .schedule(try .constant(3.5e6)), queueLimit: .time(defaultQueue)),
                media: try [0, 20, 40].map { start throws(SimulationError) in try media(from: s(start), to: s(119)) })
        case "5.5":
            // §5.5 Round trip time fairness: 4 Mb/s, five flows of 10/25/50/100/150 ms joining every 10 s.
            let flows = [(10, 0), (25, 10), (50, 20), (100, 30), (150, 40)]
            return Scenario(
                name: name, duration: s(300), forward: .init(capacity: .schedule(try .constant(4e6)), queueLimit: .time(defaultQueue)),
                media: try flows.map { (delay, start) throws(SimulationError) in
                    try media(delay: Int64(delay) * 1_000_000, from: s(start), to: s(299))
                })
        case "5.6", "5.6-1000", "5.6-cubic", "5.6-cubic-1000":
            // §5.6 Media flow competing with a long TCP flow: 2 Mb/s, media 5–119 s, TCP NewReno (or CUBIC, which
            // RFC 8868 encourages) 0–119 s; queues of 300 and 1000 ms.
            let queue: Int64 = name.hasSuffix("1000") ? 1_000_000_000 : defaultQueue
            let algorithm: TCPSender.Algorithm = name.contains("cubic") ? .cubic : .newReno
            return Scenario(
                name: name, duration: s(120), forward: .init(capacity: .schedule(try .constant(2e6)), queueLimit: .time(queue)),
                media: [try media(from: s(5), to: s(119))],
                crossTraffic: [CrossTrafficSpec(kind: .longTCP(algorithm), path: try PathImpairment(propagation: defaultDelay), start: 0, end: s(119))])
        case "5.7":
            // §5.7 Media flows competing with short TCP flows: 2 Mb/s, two media from 5 s, ten on/off TCP flows (two
            // start on) fetching 30–50 KB with idle gaps of mean 10 s.
            let tcp = try (0 ..< 10).map { i throws(SimulationError) in
                CrossTrafficSpec(kind: .onOffTCP(fileBytes: 30_000 ... 50_000, meanOffSeconds: 10, startsOn: i < 2),
                                 path: try PathImpairment(propagation: defaultDelay), start: 0, end: s(300))
            }
            return Scenario(
                name: name, duration: s(300), forward: .init(capacity: .schedule(try .constant(2e6)), queueLimit: .time(defaultQueue)),
                media: [try media(from: s(5), to: s(300)), try media(from: s(5), to: s(300))], crossTraffic: tcp)
        case "5.8":
            // §5.8 Media pause and resume: 3.5 Mb/s, three flows from 0 s; the first pauses at 40 s and resumes at 60 s.
            var flows = try (0 ..< 3).map { _ throws(SimulationError) in try media(from: 0, to: s(120)) }
            flows[0].spans = [0 ..< s(40), s(60) ..< s(120)]
            return Scenario(
                name: name, duration: s(120), forward: .init(capacity: .schedule(try .constant(3.5e6)), queueLimit: .time(defaultQueue)),
                media: flows)
        default:
            throw .make(.unknownCase, "no RFC 8867 case \"\(name)\"; the catalogue holds \(names.joined(separator: ", "))")
        }
    }

    /// A single media flow over a Mahimahi trace (the cellular substitute for RFC 8869, design note §4): the trace
    /// scaled by `scale`, 50 ms, a 300 ms queue, `duration` (default: the trace's period, at least 10 s).
    public static func traceScenario(name: String, trace: MahimahiTrace, scale: Double = 1, duration: Int64? = nil,
                                     queue: Int64 = defaultQueue) throws(SimulationError) -> Scenario {
        let length = duration ?? max(seconds(10), trace.periodMilliseconds * 1_000_000)
        return Scenario(
            name: name, duration: length, forward: .init(capacity: .trace(trace, scale: scale), queueLimit: .time(queue)),
            media: [try media(from: 0, to: length)])
    }

    static func seconds(_ value: Int) -> Int64 { Int64(value) * 1_000_000_000 }

    static func media(direction: Int = 0, delay: Int64 = defaultDelay, from start: Int64, to end: Int64) throws(SimulationError) -> MediaFlowSpec {
        MediaFlowSpec(direction: direction, path: try PathImpairment(propagation: delay), spans: [start ..< end])
    }
}
