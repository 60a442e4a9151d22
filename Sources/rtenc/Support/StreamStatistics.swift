#if canImport(Glibc)
import Glibc
#endif
import BitrateAdaptation  // String(cFormat:)
import Bitstream
import CongestionControl
import EncoderSession
import FoundationEssentials
import RTPOut
import StreamControl

/// Once-a-second figures of a running stream: a status line for people and a JSON line for `--stats-json`.
struct StreamStatistics {
    struct Line: Encodable {
        var time: Double
        var fps: Double
        var targetKbps: Double
        var actualKbps: Double
        var keyframes: Int
        var packets: Int
        var nacks: Int
        var plis: Int
        var rttMs: Double?
        var loss: Double
        var dropped: Int
        /// Frames skipped because the loop had fallen behind real time.
        var late: Int
        /// True while an IDR goes out every --join-keyframes seconds because no receiver reports (`JoinKeyframes`).
        var joinKeyframes: Bool
        var encoder: String
        /// The rate controller (`--cc`) and what it decided: its own estimate (null for one that keeps none), the
        /// pacing rate the sender was given, probe clusters sent, padding packets sent, feedback reports read.
        var cc: String?
        var estimateKbps: Double?
        var pacingKbps: Double?
        var probeClusters = 0
        var paddingPackets = 0
        var feedbackReports = 0
        /// The per-frame decisions (`FrameDecider`), in the shape `serve`'s lines carry too: frames not encoded (the
        /// controller's skip — rtenc's, over its delay target — or the pacer queue over the pushback bound), frames
        /// encoded above the byte budget the controller gave them, and the rest. (The older top-level `skipped` and
        /// `budget_overruns` keys, their totals, are gone: one shape for every command.)
        var frames = FrameDecisionCounts()

        enum CodingKeys: String, CodingKey {
            case time, fps, keyframes, packets, nacks, plis, loss, dropped, late, encoder, cc, frames
            case estimateKbps = "estimate_kbps"
            case pacingKbps = "pacing_kbps"
            case probeClusters = "probe_clusters"
            case paddingPackets = "padding_packets"
            case feedbackReports = "feedback_reports"
            case targetKbps = "target_kbps"
            case actualKbps = "actual_kbps"
            case rttMs = "rtt_ms"
            case joinKeyframes = "join_keyframes"
        }

        /// Every key is always present: `rtt_ms` is null until a receiver report gives a round trip.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(time, forKey: .time)
            try container.encode(fps, forKey: .fps)
            try container.encode(targetKbps, forKey: .targetKbps)
            try container.encode(actualKbps, forKey: .actualKbps)
            try container.encode(keyframes, forKey: .keyframes)
            try container.encode(packets, forKey: .packets)
            try container.encode(nacks, forKey: .nacks)
            try container.encode(plis, forKey: .plis)
            if let rttMs { try container.encode(rttMs, forKey: .rttMs) } else { try container.encodeNil(forKey: .rttMs) }
            try container.encode(loss, forKey: .loss)
            try container.encode(dropped, forKey: .dropped)
            try container.encode(late, forKey: .late)
            try container.encode(joinKeyframes, forKey: .joinKeyframes)
            try container.encode(self.encoder, forKey: .encoder)
            try container.encode(frames, forKey: .frames)
            guard let cc else { return }
            try container.encode(cc, forKey: .cc)
            if let estimateKbps { try container.encode(estimateKbps, forKey: .estimateKbps) } else { try container.encodeNil(forKey: .estimateKbps) }
            if let pacingKbps { try container.encode(pacingKbps, forKey: .pacingKbps) } else { try container.encodeNil(forKey: .pacingKbps) }
            try container.encode(probeClusters, forKey: .probeClusters)
            try container.encode(paddingPackets, forKey: .paddingPackets)
            try container.encode(feedbackReports, forKey: .feedbackReports)
        }

        /// The rate controller's figures (`stream`'s lines always carry them).
        mutating func addController(_ name: String, rate: LiveBitrateController, sender: RTPSenderStatistics) {
            cc = name
            estimateKbps = rate.estimate.map { Double($0) / 1000 }
            // The sender reports its pacer's drain rate (pacing factor × target); the target is what was decided.
            pacingKbps = Double(rate.allocation.pacingBitRate) / 1000
            probeClusters = rate.probeClusters.started
            paddingPackets = sender.paddingPacketsSent
            feedbackReports = sender.feedbackReports
        }

        /// The per-frame decisions so far.
        mutating func addFrames(_ statistics: FrameDecider.Statistics, queueTime: Duration?) {
            frames = FrameDecisionCounts(statistics, queueTime: queueTime)
        }
    }

    private(set) var framesEncoded = 0
    private(set) var keyframes = 0
    private(set) var dropped = 0
    private(set) var late = 0
    private var framesAtLastReport = 0
    private var bytesAtLastReport = 0
    private var bytesEncoded = 0
    private var lastReport: Double

    let start: Double

    init(start: Double) {
        self.start = start
        lastReport = start
    }

    mutating func add(_ output: EncoderOutput) {
        framesEncoded += 1
        bytesEncoded += output.frame?.bytes.count ?? 0
        if output.frame?.isKeyFrame == true { keyframes += 1 }
        if output.infoFlags.contains(.frameDropped) { dropped += 1 }
    }

    mutating func skipLate() { late += 1 }

    /// A line when a second has passed since the last one (or `force`), else nil.
    mutating func line(now: Double, targetBitRate: Int, sender: RTPSenderStatistics, encoder: String,
                       joinKeyframes: Bool = false, force: Bool = false)
        -> Line? {
        let elapsed = now - lastReport
        guard force || elapsed >= 1 else { return nil }
        defer {
            lastReport = now
            framesAtLastReport = framesEncoded
            bytesAtLastReport = bytesEncoded
        }
        let interval = max(elapsed, 1e-3)
        return Line(
            time: ((now - start) * 1000).rounded() / 1000,
            fps: (Double(framesEncoded - framesAtLastReport) / interval * 10).rounded() / 10,
            targetKbps: Double(targetBitRate) / 1000,
            actualKbps: (Double(bytesEncoded - bytesAtLastReport) * 8 / interval / 1000 * 10).rounded() / 10,
            keyframes: keyframes, packets: sender.packetsSent, nacks: sender.nackedPackets,
            plis: sender.keyframeRequestsReceived,
            rttMs: sender.roundTripTime.map { (Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1000) },
            loss: sender.fractionLost, dropped: dropped, late: late, joinKeyframes: joinKeyframes,
            encoder: encoder)
    }
}

extension StreamStatistics.Line {
    /// "12.0 s  30.0 fps  1998/2000 kb/s  1 keyframes  0 dropped  loss 0.0%  rtt 0.3 ms  libx264"; "(join)" after
    /// the keyframes while they come every --join-keyframes seconds.
    var statusText: String {
        let rtt = rttMs.map { String(cFormat: "rtt %.1f ms", $0) } ?? "rtt –"
        return String(cFormat: "%6.1f s  %4.1f fps  %5.0f/%.0f kb/s  %ld keyframes", time, fps, actualKbps, targetKbps, keyframes)
            + (joinKeyframes ? " (join)" : "")
            + String(cFormat: "  %ld dropped  loss %.1f%%  ", dropped, loss * 100) + "\(rtt)  \(encoder)"
    }
}
