/// A real-time run's per-packet ground truth — `rtenc relay --packet-log`, the userspace bottleneck a stream crossed
/// on loopback — read into the records the simulator writes (`PacketFate`), so one analyser (`Analysis`) measures
/// simulated and real runs alike (design note §5a, §5d). The relay measures what the simulator computes: arrival
/// at the queue, departure (arrival + queuing delay, its own serialisation included) and delivery on one clock that
/// starts with the relay, which is where the capacity schedule (`--rate-trace`) starts too.
///
/// The relay counts UDP payload bytes against its rate, the simulator adds IPv4 + UDP headers: utilisation is
/// goodput over capacity in each one's own bytes, so the two agree on a full link.
public enum RelayPacketLog {
    /// The header `rtenc relay` writes (NetworkEmulator's `PacketRecord.csvHeader`).
    public static let header = "arrival_ms,direction,bytes,rtp_seq,fate,queue_delay_ms,delivery_ms,kind"
    /// A log is a file someone hands us: 100 s at a few hundred packets per second is ~50k lines.
    public static let maxLines = 20_000_000

    /// Every packet of the log: forward lines on link 0 (media and padding as such, the sender's RTCP as `.rtcp`),
    /// back lines (the receiver's RTCP and feedback) on link 1 as `.rtcp`; one media flow (0). A queue drop is
    /// `.queue`, random loss and the debug filters `.random`.
    /// - Throws: `.invalidLog` for another header (an older relay wrote no `kind`), a line with another field count,
    ///   or a field that does not parse.
    public static func packets(csv text: String) throws(SimulationError) -> [PacketFate] {
        var packets: [PacketFate] = []
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.last == "\r" ? raw.dropLast() : raw[...]
            if lineNumber == 1 {
                guard line == header else {
                    throw .make(.invalidLog, "line 1: expected the header \(header) (rtenc relay --packet-log), got \(line.prefix(80))")
                }
                continue
            }
            if line.isEmpty { continue }
            guard lineNumber <= maxLines else { throw .make(.invalidLog, "line \(lineNumber): more than \(maxLines) lines") }
            packets.append(try packet(line, number: lineNumber, index: packets.count))
        }
        return packets
    }

    /// The analyser's input for a real run of `scenario` (its schedule, media range, change times) with
    /// `controller`, from the relay's log; `targets` per media flow when the sender's were recorded (empty otherwise:
    /// only the plots use them). No frame records: frame delay needs the sender's capture times, which the relay
    /// does not see, and is left out (nil in the analysis).
    public static func analysisInput(csv text: String, scenario: Scenario, controller: String,
                                     targets: [[(time: Int64, bitsPerSecond: Int)]]? = nil) throws(SimulationError) -> AnalysisInput {
        guard scenario.media.count == 1, scenario.crossTraffic.isEmpty else {
            throw .make(.invalidArgument, "a relay log holds one media flow and no cross traffic; \(scenario.name) has \(scenario.media.count) flows")
        }
        return AnalysisInput(
            caseName: scenario.name, controller: controller, duration: scenario.duration,
            links: [scenario.forward, scenario.backward], media: scenario.media,
            changeTimes: Array(Set(scenario.changeTimes + scenario.backward.changeTimes)).sorted(),
            packets: try packets(csv: text), frames: [], targets: targets ?? [[]])
    }

    /// The forward link's capacity schedule as `rtenc relay --rate-trace` reads it (`time_s,kbps` lines), so the
    /// real run's bottleneck follows the simulated one.
    /// - Throws: `.invalidArgument` for a scenario whose forward link has no schedule (unlimited, or a Mahimahi trace).
    public static func rateTrace(for scenario: Scenario) throws(SimulationError) -> String {
        guard case .schedule(let schedule) = scenario.forward.capacity else {
            throw .make(.invalidArgument, "\(scenario.name): only a capacity schedule becomes a relay rate trace")
        }
        let lines = schedule.steps.map { step in
            "\(SummaryJSON.number(Double(step.start) / 1e9)),\(SummaryJSON.number(step.bitsPerSecond / 1000))"
        }
        return (["time_s,kbps"] + lines).joined(separator: "\n") + "\n"
    }

    private static func packet(_ line: Substring, number: Int, index: Int) throws(SimulationError) -> PacketFate {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 8 else { throw .make(.invalidLog, "line \(number): \(fields.count) fields, expected 8") }
        func nanoseconds(_ field: Substring, _ name: String) throws(SimulationError) -> Int64 {
            guard let ms = Double(field), ms.isFinite, ms >= 0, ms < 1e12 else {
                throw .make(.invalidLog, "line \(number): \(name) '\(field.prefix(20))' is not a time in ms")
            }
            return Int64((ms * 1e6).rounded())
        }
        let arrival = try nanoseconds(fields[0], "arrival_ms")
        let link: Int
        switch fields[1] {
        case "forward": link = 0
        case "back": link = 1
        default: throw .make(.invalidLog, "line \(number): direction '\(fields[1].prefix(20))', expected forward or back")
        }
        guard let bytes = Int(fields[2]), bytes >= 0, bytes <= 65_535 else {
            throw .make(.invalidLog, "line \(number): bytes '\(fields[2].prefix(20))' is not a datagram size")
        }
        let sequence: Int64
        if fields[3].isEmpty {
            sequence = Int64(index)
        } else if let value = UInt16(fields[3]) {
            sequence = Int64(value)
        } else {
            throw .make(.invalidLog, "line \(number): rtp_seq '\(fields[3].prefix(20))' is not 0…65535")
        }
        let kind: PacketKind
        switch (fields[7], link) {
        case ("media", 0): kind = .media
        case ("padding", 0): kind = .padding
        case ("rtcp", _): kind = .rtcp
        default: throw .make(.invalidLog, "line \(number): kind '\(fields[7].prefix(20))' on the \(fields[1]) link, expected media, padding or rtcp")
        }
        var fate = PacketFate(link: link, flow: 0, kind: kind, bytes: bytes, sequence: sequence, enqueued: arrival)
        switch fields[4] {
        case "forwarded":
            let departed = arrival + (try nanoseconds(fields[5], "queue_delay_ms"))
            let delivered = try nanoseconds(fields[6], "delivery_ms")
            guard delivered >= departed else { throw .make(.invalidLog, "line \(number): delivered before it left the queue") }
            fate.departed = departed
            fate.arrived = delivered
        case "queue":
            fate.drop = .queue
        case "loss", "frame-filter", "packet-filter":
            fate.drop = .random
        default:
            throw .make(.invalidLog, "line \(number): fate '\(fields[4].prefix(20))', expected forwarded, queue, loss, frame-filter or packet-filter")
        }
        return fate
    }
}
