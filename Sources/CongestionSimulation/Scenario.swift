/// One link of the simulated path: its capacity and its drop-tail queue.
public struct LinkConfiguration: Sendable, Hashable {
    public var capacity: LinkCapacity
    public var queueLimit: QueueLimit

    public init(capacity: LinkCapacity, queueLimit: QueueLimit) {
        self.capacity = capacity
        self.queueLimit = queueLimit
    }

    /// No rate limit, no queue: only the flows' propagation delays (the return path of most RFC 8867 cases).
    public static let unlimited = LinkConfiguration(capacity: .unlimited, queueLimit: .unlimited)

    /// The capacity in bits/s averaged over [start, end) ns (+∞ unlimited).
    public func averageCapacity(from start: Int64, to end: Int64) -> Double {
        guard end > start else { return 0 }
        switch capacity {
        case .unlimited:
            return .infinity
        case .schedule(let schedule):
            var bits = 0.0
            var time = start
            while time < end {
                let next = min(end, schedule.nextChange(after: time) ?? end)
                bits += schedule.rate(at: time) * Double(next - time) / 1e9
                time = next
            }
            return bits / (Double(end - start) / 1e9)
        case .trace(let trace, let scale):
            var index = trace.firstOpportunity(atOrAfter: start)
            var count = 0
            while trace.time(ofOpportunity: index) < end {
                count += 1
                index += 1
            }
            return Double(count * MahimahiTrace.opportunityBytes * 8) * scale / (Double(end - start) / 1e9)
        }
    }

    /// The times the capacity steps (schedules only).
    public var changeTimes: [Int64] {
        guard case .schedule(let schedule) = capacity else { return [] }
        return schedule.steps.dropFirst().map(\.start)
    }
}

/// A media flow of the scenario: synthetic codec → RTP send session → link → receive session.
public struct MediaFlowSpec: Sendable, Hashable {
    /// 0: its media crosses the forward link (feedback the backward one); 1: the other way round (RFC 8867 §5.3).
    public var direction: Int
    public var path: PathImpairment
    /// When it sends, ns from the start; several spans for a flow that pauses (RFC 8867 §5.8).
    public var spans: [Range<Int64>]
    /// RFC 8867's media range (R_min, R_max) and start rate, bits/s.
    public var minimumBitrate: Int
    public var maximumBitrate: Int
    public var startBitrate: Int
    /// REMB/TMMBR limits the receiver sends at the given times (libwebrtc's REMB cap-and-lift scenario): handed to
    /// the policy's `observe(peerLimit:at:)` at the sender, as if they had crossed the return path instantly.
    public var peerLimits: [PeerLimit]

    public struct PeerLimit: Sendable, Hashable {
        public var time: Int64
        public var bitsPerSecond: UInt64

        public init(time: Int64, bitsPerSecond: UInt64) {
            self.time = time
            self.bitsPerSecond = bitsPerSecond
        }
    }

    public init(direction: Int = 0, path: PathImpairment, spans: [Range<Int64>], minimumBitrate: Int = 150_000,
                maximumBitrate: Int = 1_500_000, startBitrate: Int = 150_000, peerLimits: [PeerLimit] = []) {
        self.peerLimits = peerLimits
        self.direction = direction
        self.path = path
        self.spans = spans
        self.minimumBitrate = minimumBitrate
        self.maximumBitrate = maximumBitrate
        self.startBitrate = startBitrate
    }

    public var start: Int64 { spans.first?.lowerBound ?? 0 }
}

/// Traffic that shares the bottleneck without being controlled by the policy under test.
public struct CrossTrafficSpec: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// UDP at a constant bit rate in MTU-sized packets (RFC 8868 §5.3).
        case constantBitRate(bitsPerSecond: Double, packetBytes: Int)
        /// One TCP flow with infinite data (RFC 8867 §5.6; NewReno as ns-3, CUBIC as RFC 8868 encourages).
        case longTCP(TCPSender.Algorithm)
        /// A TCP flow fetching files of `fileBytes` separated by idle gaps exponentially distributed with mean
        /// `meanOffSeconds` (RFC 8868 §5.2's short TCP; RFC 8867 §5.7); `startsOn`: its first file at its start.
        case onOffTCP(fileBytes: ClosedRange<Int>, meanOffSeconds: Double, startsOn: Bool, algorithm: TCPSender.Algorithm = .newReno)
    }

    public var kind: Kind
    public var path: PathImpairment
    public var start: Int64
    public var end: Int64

    public init(kind: Kind, path: PathImpairment, start: Int64, end: Int64) {
        self.kind = kind
        self.path = path
        self.start = start
        self.end = end
    }
}

/// Everything one simulation run needs but the controller: the links, the flows and how long.
public struct Scenario: Sendable, Hashable {
    public var name: String
    public var duration: Int64
    public var forward: LinkConfiguration
    public var backward: LinkConfiguration
    public var media: [MediaFlowSpec]
    public var crossTraffic: [CrossTrafficSpec]
    public var codec: SyntheticCodec.Configuration
    /// How often each receiver reports (transport-cc's default: 100 ms).
    public var feedbackInterval: Int64

    public init(name: String, duration: Int64, forward: LinkConfiguration, backward: LinkConfiguration = .unlimited,
                media: [MediaFlowSpec], crossTraffic: [CrossTrafficSpec] = [], codec: SyntheticCodec.Configuration = .init(),
                feedbackInterval: Int64 = 100_000_000) {
        self.name = name
        self.duration = duration
        self.forward = forward
        self.backward = backward
        self.media = media
        self.crossTraffic = crossTraffic
        self.codec = codec
        self.feedbackInterval = feedbackInterval
    }

    public func link(_ index: Int) -> LinkConfiguration { index == 0 ? forward : backward }

    /// Capacity steps on the forward link, media joins, pauses and resumes, cross traffic starts and ends: the
    /// moments after which the analyser waits before it calls a period static.
    public var changeTimes: [Int64] {
        var times = forward.changeTimes
        for flow in media {
            for span in flow.spans {
                times.append(span.lowerBound)
                if span.upperBound < duration { times.append(span.upperBound) }
            }
        }
        for cross in crossTraffic {
            times.append(cross.start)
            if cross.end < duration { times.append(cross.end) }
        }
        return Array(Set(times.filter { $0 > 0 && $0 < duration })).sorted()
    }

    func validate() throws(SimulationError) {
        guard duration > 0 else { throw .make(.invalidArgument, "a duration of \(duration) ns") }
        guard !media.isEmpty || !crossTraffic.isEmpty else { throw .make(.invalidArgument, "a scenario without flows") }
        guard feedbackInterval > 0 else { throw .make(.invalidArgument, "a feedback interval of \(feedbackInterval) ns") }
        for flow in media {
            guard flow.direction == 0 || flow.direction == 1 else { throw .make(.invalidArgument, "direction \(flow.direction)") }
            guard 0 < flow.minimumBitrate, flow.minimumBitrate <= flow.maximumBitrate else {
                throw .make(.invalidArgument, "a media range of \(flow.minimumBitrate)…\(flow.maximumBitrate) b/s")
            }
            guard !flow.spans.isEmpty, zip(flow.spans, flow.spans.dropFirst()).allSatisfy({ $0.upperBound <= $1.lowerBound }) else {
                throw .make(.invalidArgument, "a media flow's spans must be given in order, without overlap")
            }
        }
        for cross in crossTraffic {
            guard cross.start < cross.end else { throw .make(.invalidArgument, "cross traffic from \(cross.start) to \(cross.end) ns") }
            if case .constantBitRate(let rate, let bytes) = cross.kind, !(rate > 0) || bytes <= 0 {
                throw .make(.invalidArgument, "constant bit rate traffic of \(rate) b/s in \(bytes)-byte packets")
            }
            if case .onOffTCP(let sizes, let off, _, _) = cross.kind, sizes.lowerBound <= 0 || !(off > 0) {
                throw .make(.invalidArgument, "on/off TCP with files of \(sizes) bytes, idle mean \(off) s")
            }
        }
    }
}
