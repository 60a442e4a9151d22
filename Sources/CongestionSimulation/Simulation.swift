import CongestionControl
import MediaCore
import RTP

/// The discrete-event closed loop of issue 17: for each media flow, codec (`SimulatedCodec`: synthetic, or real x264
/// from an edge module) → `RTPSendSession` (its pacer) → the shared bottleneck → per-flow propagation, jitter, loss
/// → `RTPReceiveSession` → the return link → the sender; per-packet results reach the `BitrateControlPolicy` as
/// transport-cc or RFC 8888 RTCP between the sessions, or from a `FeedbackSource` (`FeedbackPath`), and the policy is
/// asked for the rate after each report and every 25 ms (goog_cc's process interval). Cross traffic (CBR UDP, TCP NewReno) shares
/// the bottleneck. Everything is driven by one `EventQueue` in integer nanoseconds with seeded randomness: the
/// same scenario, policies and seed give the same run, bit for bit. No clock is read, no socket opened.
///
/// Probes: on the wire, the send session's own prober (`RTPSendSession.startProbe`, as a live sender's
/// `LiveBitrateController` hands it each cluster): padding-only packets on its RTX stream at the cluster's rate, ahead
/// of the paced media; with a `FeedbackSource`, the simulator sends a cluster's packets itself beside the session
/// (kind `.padding`, tagged with the cluster id).
public final class Simulation {
    /// goog_cc's process interval.
    public static let controllerInterval: Int64 = 25_000_000
    /// IPv4 + UDP headers, counted on the links (not in `SentPacket.size`, as libwebrtc counts).
    public static let ipUDPOverhead = 28
    /// Simulation time 0 as the sessions' wall clock and the policies' `Instant`.
    static let rtpEpoch: Int64 = 1_700_000_000_000_000_000
    static let policyEpoch: Int64 = 1_000_000_000

    enum Event {
        case frame(flow: Int)
        case senderWake(flow: Int)
        case receiverWake(flow: Int)
        case controllerTick(flow: Int)
        case feedbackDue(flow: Int)
        case probe(flow: Int, cluster: Int, bytes: Int)
        case peerLimit(flow: Int, bitsPerSecond: UInt64)
        case arrival(Packet)
        case constantBitRate(cross: Int)
        case tcpStart(cross: Int)
        case tcpTimer(cross: Int)
    }

    struct Packet {
        var kind: PacketKind
        var flow: Int
        var sequence: Int64
        var toSender: Bool
        var datagram: [UInt8] = []
        var feedback: TransportPacketsFeedback?
    }

    struct TCPFlow {
        var sender: TCPSender
        var receiver = TCPReceiver()
        var timerPending: Int64?
        var random: SimulationRandom
    }

    public let scenario: Scenario
    public let seed: UInt64
    var queue = EventQueue<Event>()
    private var links: [Bottleneck]
    /// [link][flow]: the path after the queue (flows numbered media first, then cross traffic).
    private var paths: [[ImpairedPath]]
    private var linkRandom: [SimulationRandom]
    var flows: [MediaFlow] = []
    private var tcp: [Int: TCPFlow] = [:]
    private var cbrSequence: [Int: Int64] = [:]
    private(set) var fates: [PacketFate] = []
    private(set) var frames: [FrameFate] = []
    private var unused: [(link: Int, time: Int64)] = []
    public private(set) var eventsProcessed = 0
    var now: Int64 = 0

    /// - Parameters:
    ///   - policy: makes the policy of media flow `i` (one instance per flow).
    ///   - feedbackPath: how packet results reach the policies: on the wire between the sessions, or out of band.
    ///   - feedback: with `.groundTruth`, makes the feedback source of a flow (default: `GroundTruthFeedback`).
    ///   - codec: makes the codec of media flow `i` (default: a `SyntheticCodec` of `scenario.codec` at the flow's
    ///     start rate).
    public init(scenario: Scenario, seed: UInt64, policy: (Int) -> any BitrateControlPolicy,
                feedbackPath: FeedbackPath = .groundTruth, feedback: ((Int) -> any FeedbackSource)? = nil,
                codec: ((Int, MediaFlowSpec) throws(SimulationError) -> any SimulatedCodec)? = nil,
                logUnusedOpportunities: Bool = false) throws(SimulationError) {
        try scenario.validate()
        self.scenario = scenario
        self.seed = seed
        var forward = try Bottleneck(capacity: scenario.forward.capacity, queueLimit: scenario.forward.queueLimit)
        var backward = try Bottleneck(capacity: scenario.backward.capacity, queueLimit: scenario.backward.queueLimit)
        forward.recordsUnusedOpportunities = logUnusedOpportunities
        backward.recordsUnusedOpportunities = logUnusedOpportunities
        links = [forward, backward]
        linkRandom = [SimulationRandom(seed: seed, stream: 1), SimulationRandom(seed: seed, stream: 2)]
        let flowCount = scenario.media.count + scenario.crossTraffic.count
        let idle = ImpairedPath(try PathImpairment(propagation: 0))
        paths = Array(repeating: Array(repeating: idle, count: flowCount), count: 2)
        for (i, spec) in scenario.media.enumerated() {
            let source: any FeedbackSource = feedbackPath.isOnTheWire ? SessionFeedback()
                : feedback?(i) ?? GroundTruthFeedback(interval: scenario.feedbackInterval, epoch: Self.policyEpoch)
            let encoder: any SimulatedCodec
            if let codec {
                encoder = try codec(i, spec)
            } else {
                encoder = try SyntheticCodec(configuration: scenario.codec, target: Double(spec.startBitrate))
            }
            flows.append(try MediaFlow(index: i, spec: spec, codec: encoder, policy: policy(i), feedback: source,
                                       feedbackPath: feedbackPath, feedbackInterval: scenario.feedbackInterval,
                                       seed: seed &+ UInt64(i) &* 0x9E37))
            paths[spec.direction][i] = ImpairedPath(spec.path)
            paths[1 - spec.direction][i] = ImpairedPath(try PathImpairment(propagation: spec.path.propagation))
        }
        for (j, cross) in scenario.crossTraffic.enumerated() {
            let flow = scenario.media.count + j
            paths[0][flow] = ImpairedPath(cross.path)
            paths[1][flow] = ImpairedPath(try PathImpairment(propagation: cross.path.propagation))
            switch cross.kind {
            case .constantBitRate:
                queue.schedule(.constantBitRate(cross: j), at: cross.start)
            case .longTCP(let algorithm):
                tcp[j] = TCPFlow(sender: TCPSender(segments: 0, algorithm: algorithm),
                                 random: SimulationRandom(seed: seed, stream: 0x3000 + UInt64(j)))
                queue.schedule(.tcpStart(cross: j), at: cross.start)
            case .onOffTCP(_, let meanOff, let startsOn, let algorithm):
                var random = SimulationRandom(seed: seed, stream: 0x3000 + UInt64(j))
                let first = startsOn ? cross.start : cross.start + Int64(random.exponential(mean: meanOff) * 1e9)
                tcp[j] = TCPFlow(sender: TCPSender(segments: 0, algorithm: algorithm), random: random)
                queue.schedule(.tcpStart(cross: j), at: first)
            }
        }
        for flow in flows {
            queue.schedule(.controllerTick(flow: flow.index), at: flow.spec.start)
            if !feedbackPath.isOnTheWire {
                queue.schedule(.feedbackDue(flow: flow.index), at: flow.spec.start + scenario.feedbackInterval)
            }
            for span in flow.spec.spans { queue.schedule(.frame(flow: flow.index), at: span.lowerBound) }
            for limit in flow.spec.peerLimits {
                queue.schedule(.peerLimit(flow: flow.index, bitsPerSecond: limit.bitsPerSecond), at: limit.time)
            }
        }
    }

    private var hasRun = false

    /// Runs to the scenario's end and returns everything the analyser needs; once (a second call throws).
    public func run() throws(SimulationError) -> SimulationResult {
        guard !hasRun else { throw .make(.invalidArgument, "a simulation runs once; make a new one to run again") }
        hasRun = true
        while let next = queue.nextTime, next < scenario.duration {
            let (time, event) = queue.popNext()!
            now = time
            eventsProcessed += 1
            try handle(event)
        }
        for link in 0 ..< 2 { unused += links[link].takeUnusedOpportunities().map { (link, $0) } }
        return SimulationResult(
            scenario: scenario, seed: seed, controller: flows.first?.policy.name ?? "none", packets: fates, frames: frames,
            targets: flows.map { $0.targets }, probeClusters: flows.map { $0.probeClusters },
            unusedOpportunities: unused, eventsProcessed: eventsProcessed,
            tcpTimeouts: scenario.crossTraffic.indices.map { tcp[$0]?.sender.timeouts ?? 0 },
            tcpRetransmissions: scenario.crossTraffic.indices.map { tcp[$0]?.sender.retransmissions ?? 0 })
    }

    func rtp(_ time: Int64) -> RTPInstant { RTPInstant(nanosecondsSinceEpoch: Self.rtpEpoch + time) }
    func instant(_ time: Int64) -> Instant { Instant(nanoseconds: Self.policyEpoch + time) }

    private func handle(_ event: Event) throws(SimulationError) {
        switch event {
        case .frame(let index):
            try captureFrame(flows[index])
        case .senderWake(let index):
            let flow = flows[index]
            if flow.senderWake == now { flow.senderWake = nil }
            try serviceSender(flow)
        case .receiverWake(let index):
            let flow = flows[index]
            if flow.receiverWake == now { flow.receiverWake = nil }
            if let due = flow.receiver.nextTimeout(), due <= rtp(now) { flow.receiver.handleTimeout(at: rtp(now)) }
            serviceReceiver(flow)
        case .controllerTick(let index):
            let flow = flows[index]
            try decide(flow)
            if now + Self.controllerInterval < (flow.spec.spans.last?.upperBound ?? 0) {
                queue.schedule(.controllerTick(flow: index), at: now + Self.controllerInterval)
            }
        case .feedbackDue(let index):
            let flow = flows[index]
            if let (bytes, report) = flow.feedback.report(at: now) {
                inject(Packet(kind: .feedback, flow: index, sequence: 0, toSender: true, feedback: report),
                       link: 1 - flow.spec.direction, bytes: bytes + Self.ipUDPOverhead)
            }
            queue.schedule(.feedbackDue(flow: index), at: now + scenario.feedbackInterval)
        case .probe(let index, let cluster, let bytes):
            let flow = flows[index]
            let packet = SentPacket(sequenceNumber: flow.nextTransportSequence, sendTime: instant(now), size: bytes,
                                    kind: .padding, probeClusterID: cluster)
            flow.nextTransportSequence += 1
            flow.policy.observe(sent: packet)
            flow.feedback.sent(packet)
            inject(Packet(kind: .padding, flow: index, sequence: packet.sequenceNumber, toSender: false),
                   link: flow.spec.direction, bytes: bytes + Self.ipUDPOverhead)
        case .peerLimit(let index, let bitsPerSecond):
            flows[index].policy.observe(peerLimit: bitsPerSecond, at: instant(now))
            try decide(flows[index])
        case .arrival(let packet):
            try arrive(packet)
        case .constantBitRate(let j):
            guard case .constantBitRate(let rate, let bytes) = scenario.crossTraffic[j].kind else { return }
            let sequence = cbrSequence[j, default: 0]
            cbrSequence[j] = sequence + 1
            inject(Packet(kind: .cbr, flow: scenario.media.count + j, sequence: sequence, toSender: false), link: 0, bytes: bytes)
            let next = now + Int64((Double(bytes * 8) / rate * 1e9).rounded())
            if next < scenario.crossTraffic[j].end { queue.schedule(.constantBitRate(cross: j), at: next) }
        case .tcpStart(let j):
            guard now < scenario.crossTraffic[j].end else { return }
            switch scenario.crossTraffic[j].kind {
            case .longTCP:
                tcp[j]!.sender.startTransfer(segments: .max / 2)
            case .onOffTCP(let sizes, _, _, _):
                let bytes = sizes.lowerBound + Int(tcp[j]!.random.unit() * Double(sizes.count))
                let segments = (bytes + TCPSender.segmentBytes - 1) / TCPSender.segmentBytes
                tcp[j]!.sender.startTransfer(segments: Int64(segments))
            case .constantBitRate:
                return
            }
            sendTCP(j)
        case .tcpTimer(let j):
            tcp[j]!.timerPending = nil
            if let deadline = tcp[j]!.sender.timerDeadline, deadline <= now { tcp[j]!.sender.timerExpired(at: now) }
            sendTCP(j)
        }
    }

    // MARK: Media

    private func captureFrame(_ flow: MediaFlow) throws(SimulationError) {
        let interval = flow.codec.frameInterval
        if let span = flow.spec.spans.first(where: { $0.contains(now) }), now + interval < span.upperBound {
            queue.schedule(.frame(flow: flow.index), at: now + interval)
        }
        let presentationTime = MediaTime(value: flow.frameIndex, timescale: Int64(scenario.codec.framesPerSecond))
        flow.frameIndex += 1
        guard let frame = try flow.codec.encode(at: now, presentationTime: presentationTime, budget: frameBudget(flow),
                                                random: &flow.random) else {
            // Skipped to keep within an encoder-coupled policy's budget: the policy hears of it as size 0.
            flow.policy.observe(encodedFrameSize: 0, isKeyframe: false, at: instant(now))
            return
        }
        do {
            let timestamp = try flow.sender.enqueue(frame.accessUnit, captureTime: rtp(now), at: rtp(now))
            flow.frames[timestamp] = frames.count
        } catch {
            throw .make(.session, "flow \(flow.index) refused a frame: \(error)")
        }
        frames.append(FrameFate(flow: flow.index, captured: now, bytes: frame.bytes, isKeyframe: frame.isKeyframe))
        flow.policy.observe(encodedFrameSize: frame.bytes, isKeyframe: frame.isKeyframe, at: instant(now))
        // A keyframe may change the pacing (rtenc's policy bursts only for keyframes): decide before it leaves.
        if frame.isKeyframe { try decide(flow) }
        try serviceSender(flow)
    }

    /// An encoder-coupled policy's per-frame byte budget from its last decision (`BitrateAllocation.frameBudgetBytes`;
    /// 0 for `.skipNextFrame`): the synthetic codec cuts the frame to it or skips it; x264 gets it as the session's
    /// `FrameOptions.maxFrameBytes` (a single-frame VBV; 0 drops the frame before encoding).
    private func frameBudget(_ flow: MediaFlow) -> Int? {
        flow.allocation.skipNextFrame ? 0 : flow.allocation.frameBudgetBytes
    }

    private func decide(_ flow: MediaFlow) throws(SimulationError) {
        let allocation = flow.policy.allocation(within: flow.bounds, at: instant(now))
        if !allocation.hasSameRates(as: flow.allocation) || flow.targets.isEmpty {
            try flow.codec.setTarget(Double(allocation.encoderBitRate), at: now)
            flow.allocation = allocation
            flow.sender.setTargetBitrate(allocation.pacingBitRate)
            flow.targets.append((now, allocation.encoderBitRate))
        }
        flow.allocation = allocation
        for cluster in allocation.probeClusters { try scheduleProbe(cluster, flow: flow) }
    }

    /// A cluster as libwebrtc's prober sends it. On the wire, as a live sender does (`LiveBitrateController` →
    /// `RTPSender.startProbe`): the session's `ProbeSchedule` sends it as padding on RTX at the cluster's own rate,
    /// ahead of the queued media and after the clusters before it. Out of band: packets of about 2 ms of its rate,
    /// at least `minProbes` of them and at least its bytes, spaced at its rate, beside the session.
    private func scheduleProbe(_ cluster: ProbeClusterConfig, flow: MediaFlow) throws(SimulationError) {
        flow.probeClusters.append((now, cluster.id, cluster.bitrate))
        if flow.feedbackPath.isOnTheWire {
            try startProbe(cluster, flow: flow)
            return
        }
        let rate = Double(max(cluster.bitrate, 1))
        let size = min(1200, max(200, Int(rate * 0.002 / 8)))
        let count = max(cluster.minProbes, (cluster.minBytes + size - 1) / size)
        let spacing = Double(size * 8) / rate * 1e9
        for k in 0 ..< count {
            queue.schedule(.probe(flow: flow.index, cluster: cluster.id, bytes: size), at: now + Int64(Double(k) * spacing))
        }
    }

    func serviceSender(_ flow: MediaFlow) throws(SimulationError) {
        let at = rtp(now)
        while let transmit = flow.sender.pollTransmit(at: at) {
            let datagrams = transmit.datagrams.map { Array($0) }
            let isRTP = transmit.kind == .rtp
            flow.sender.didTransmit(transmit.count, at: at)
            guard isRTP else {
                for bytes in datagrams {
                    inject(Packet(kind: .rtcp, flow: flow.index, sequence: 0, toSender: false, datagram: bytes),
                           link: flow.spec.direction, bytes: bytes.count + Self.ipUDPOverhead)
                }
                continue
            }
            // On the wire the session says what left, as live; out of band the simulator numbers the packets itself.
            let sent = flow.feedbackPath.isOnTheWire ? try sentOnTheWire(flow, datagrams: datagrams.count) : nil
            for (i, bytes) in datagrams.enumerated() {
                let packet: SentPacket
                if let sent {
                    packet = sent[i]
                } else {
                    packet = SentPacket(sequenceNumber: flow.nextTransportSequence, sendTime: instant(now), size: bytes.count)
                    flow.nextTransportSequence += 1
                }
                flow.policy.observe(sent: packet)
                flow.feedback.sent(packet)
                inject(Packet(kind: packet.kind == .padding ? .padding : .media, flow: flow.index, sequence: packet.sequenceNumber,
                              toSender: false, datagram: bytes),
                       link: flow.spec.direction, bytes: bytes.count + Self.ipUDPOverhead)
            }
        }
        var reports: [TransportPacketsFeedback] = []
        while let event = flow.sender.pollEvent() {
            switch event {
            case .keyframeRequested: flow.codec.requestKeyframe()
            case .transportFeedback(let report): reports.append(report)
            default: break
            }
        }
        // What a live driver does with the session's feedback event: the policy hears it, then decides.
        for report in reports {
            flow.policy.observe(feedback: onPolicyClock(report))
            try decide(flow)
        }
        if let due = flow.sender.nextTimeout() {
            let time = max(now, due.nanosecondsSinceEpoch - Self.rtpEpoch)
            if flow.senderWake.map({ time < $0 }) ?? true {
                flow.senderWake = time
                queue.schedule(.senderWake(flow: flow.index), at: time)
            }
        }
    }

    private func serviceReceiver(_ flow: MediaFlow) {
        let at = rtp(now)
        while let datagram = flow.receiver.pollTransmit(at: at) {
            let kind: PacketKind = FeedbackPath.isCongestionFeedback(datagram) ? .feedback : .rtcp
            inject(Packet(kind: kind, flow: flow.index, sequence: 0, toSender: true, datagram: datagram),
                   link: 1 - flow.spec.direction, bytes: datagram.count + Self.ipUDPOverhead)
        }
        while let event = flow.receiver.pollEvent() {
            if case .accessUnit(let unit) = event, let index = flow.frames.removeValue(forKey: unit.rtpTimestamp) {
                frames[index].delivered = now
            }
        }
        if let due = flow.receiver.nextTimeout() {
            let time = max(now, due.nanosecondsSinceEpoch - Self.rtpEpoch)
            if flow.receiverWake.map({ time < $0 }) ?? true {
                flow.receiverWake = time
                queue.schedule(.receiverWake(flow: flow.index), at: time)
            }
        }
    }

    // MARK: The network

    func inject(_ packet: Packet, link: Int, bytes: Int) {
        var fate = PacketFate(link: link, flow: packet.flow, kind: packet.kind, bytes: bytes, sequence: packet.sequence, enqueued: now)
        switch links[link].admit(bytes: bytes, at: now) {
        case .dropped:
            fate.drop = .queue
        case .departs(let departure):
            fate.departed = departure
            if let arrival = paths[link][packet.flow].arrival(departure: departure, random: &linkRandom[link]) {
                fate.arrived = arrival
                queue.schedule(.arrival(packet), at: arrival)
            } else {
                fate.drop = .random
            }
        }
        fates.append(fate)
        if links[link].recordsUnusedOpportunities {
            unused += links[link].takeUnusedOpportunities().map { (link, $0) }
        }
    }

    private func arrive(_ packet: Packet) throws(SimulationError) {
        let at = rtp(now)
        switch packet.kind {
        case .media:
            let flow = flows[packet.flow]
            flow.feedback.arrived(sequence: packet.sequence, at: now)
            flow.receiver.handle(rtp: packet.datagram, at: at)
            serviceReceiver(flow)
        case .padding:
            let flow = flows[packet.flow]
            flow.feedback.arrived(sequence: packet.sequence, at: now)
            if !packet.datagram.isEmpty {  // the session's padding: its arrival is recorded for the feedback
                flow.receiver.handle(rtp: packet.datagram, at: at)
                serviceReceiver(flow)
            }
        case .feedback where packet.feedback != nil:  // out of band, from a FeedbackSource
            let flow = flows[packet.flow]
            guard let report = packet.feedback else { return }
            flow.policy.observe(feedback: flow.feedback.delivered(report, at: now))
            try decide(flow)
        case .rtcp, .feedback:  // the sessions' RTCP, feedback on the wire included
            let flow = flows[packet.flow]
            if packet.toSender {
                flow.sender.handle(rtcp: packet.datagram[...], at: at)
                try serviceSender(flow)
            } else {
                flow.receiver.handle(rtcp: packet.datagram, at: at)
                serviceReceiver(flow)
            }
        case .tcpData:
            let j = packet.flow - scenario.media.count
            let ack = tcp[j]!.receiver.receive(segment: packet.sequence)
            inject(Packet(kind: .tcpAck, flow: packet.flow, sequence: ack, toSender: true), link: 1, bytes: TCPSender.ackBytes)
        case .tcpAck:
            let j = packet.flow - scenario.media.count
            let wasComplete = tcp[j]!.sender.isComplete
            tcp[j]!.sender.receiveACK(next: packet.sequence, at: now)
            sendTCP(j)
            if !wasComplete, tcp[j]!.sender.isComplete, case .onOffTCP(_, let meanOff, _, _) = scenario.crossTraffic[j].kind {
                let gap = Int64(tcp[j]!.random.exponential(mean: meanOff) * 1e9)
                queue.schedule(.tcpStart(cross: j), at: now + max(gap, 1))
            }
        case .cbr:
            break
        }
    }

    private func sendTCP(_ j: Int) {
        let flow = scenario.media.count + j
        if now < scenario.crossTraffic[j].end {
            for segment in tcp[j]!.sender.poll(at: now) {
                inject(Packet(kind: .tcpData, flow: flow, sequence: segment, toSender: false), link: 0, bytes: TCPSender.segmentBytes)
            }
        }
        if let deadline = tcp[j]!.sender.timerDeadline, tcp[j]!.timerPending == nil, now < scenario.crossTraffic[j].end {
            tcp[j]!.timerPending = deadline
            queue.schedule(.tcpTimer(cross: j), at: max(now, deadline))
        }
    }
}

/// Everything one run produced: the analyser's input.
public struct SimulationResult: Sendable {
    public var scenario: Scenario
    public var seed: UInt64
    public var controller: String
    public var packets: [PacketFate]
    public var frames: [FrameFate]
    /// Per media flow: (time, encoder target bits/s) at each change.
    public var targets: [[(time: Int64, bitsPerSecond: Int)]]
    public var probeClusters: [[(time: Int64, id: Int, bitsPerSecond: UInt64)]]
    public var unusedOpportunities: [(link: Int, time: Int64)]
    public var eventsProcessed: Int
    /// Per cross-traffic flow (0 for non-TCP): retransmission timeouts and segments retransmitted.
    public var tcpTimeouts: [Int] = []
    public var tcpRetransmissions: [Int] = []

    /// FNV-1a over every packet's and frame's fate, in order: two runs are identical iff their digests are (to
    /// 2^-64).
    public var digest: UInt64 {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        func add(_ number: Int64) {
            var bits = UInt64(bitPattern: number)
            for _ in 0 ..< 8 {
                value ^= bits & 0xFF
                value &*= 0x0000_0100_0000_01B3
                bits >>= 8
            }
        }
        for packet in packets {
            add(Int64(packet.link << 32 | packet.flow))
            add(Int64(packet.bytes))
            add(packet.sequence)
            add(packet.enqueued)
            add(packet.departed ?? -1)
            add(packet.arrived ?? -1)
        }
        for frame in frames {
            add(frame.captured)
            add(Int64(frame.bytes))
            add(frame.delivered ?? -1)
        }
        return value
    }
}
