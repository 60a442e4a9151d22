import Bitstream
import Synchronization

/// A small H.264 RTP receiver: UDP socket(s) + reorder buffer + depacketizer + RTCP (RR, NACK on loss — and for the
/// packets before a first IDR that came without SPS/PPS, `StartOfStreamNACK` — PLI until there is a picture to
/// decode: see `PictureRecovery`). For tests and the CLI's `receive`; not a full jitter-buffered player.
public final class RTPReceiver: Sendable {
    public struct Configuration: Sendable {
        /// Where to listen for RTP; RTCP on port + 1 (or the same port with `rtcpMux`, told apart by RFC 5761 §4).
        public var localAddress: SocketAddress
        public var rtcpMux: Bool
        public var ssrc: UInt32
        public var cname: String
        /// Only this payload type is depacketized (nil = any).
        public var payloadType: UInt8?
        /// Packets the reorder buffer spans: a hole is also given up on once a packet this far ahead arrives, so it
        /// must hold what arrives in one round trip, or a NACK cannot fill the hole. 512: an IDR of a few hundred
        /// packets (8 Mb/s 720p noise: ~60 per frame) plus the frames behind it while the retransmission travels.
        public var reorderWindow: Int
        /// Packets wait at most this long behind a missing one before it is declared lost. Default: 300 ms with NACK
        /// (room for three requests one round trip of up to ~100 ms apart), 100 ms without.
        public var maxReorderDelay: Duration
        public var sendNACK: Bool
        /// Send PLI (throttled) until a decodable IDR arrives — at the start, after an access unit is dropped, after
        /// `decoderFailed()` — following the rules of `PictureRecovery`.
        public var sendPictureLossOnDrop: Bool
        /// SPS/PPS known before the stream starts (the SDP's sprop-parameter-sets): an IDR that arrives without its
        /// own is then decodable, and no PLI is sent for it.
        public var parameterSets: [[UInt8]]
        /// SRTP/SRTCP keys (the sender's, from its SDP): incoming packets are authenticated and decrypted, ours to
        /// the sender are protected with the same key under our own SSRC. Packets that fail are counted and dropped.
        public var srtp: SRTPConfiguration?

        public init(localAddress: SocketAddress, rtcpMux: Bool = false, ssrc: UInt32 = .random(in: 1 ... .max),
                    cname: String = "rtenc-receiver", payloadType: UInt8? = 96, reorderWindow: Int = 512,
                    maxReorderDelay: Duration? = nil, sendNACK: Bool = true, sendPictureLossOnDrop: Bool = true,
                    srtp: SRTPConfiguration? = nil, parameterSets: [[UInt8]] = []) {
            self.srtp = srtp
            self.parameterSets = parameterSets
            self.maxReorderDelay = maxReorderDelay ?? (sendNACK ? .milliseconds(300) : .milliseconds(100))
            self.localAddress = localAddress
            self.rtcpMux = rtcpMux
            self.ssrc = ssrc
            self.cname = cname
            self.payloadType = payloadType
            self.reorderWindow = reorderWindow
            self.sendNACK = sendNACK
            self.sendPictureLossOnDrop = sendPictureLossOnDrop
        }
    }

    public struct Statistics: Sendable, Equatable {
        public var packetsReceived = 0
        public var bytesReceived = 0
        public var accessUnits = 0
        public var accessUnitsDropped = 0
        public var packetsLost = 0
        public var malformedPackets = 0
        public var otherPayloadTypes = 0
        public var nacksSent = 0
        public var pictureLossIndicationsSent = 0
        /// The PLIs sent, by why they were wanted (the counts add up to `pictureLossIndicationsSent`).
        public var pictureLossReasons: [PictureRecovery.Reason: Int] = [:]
        /// Sequence numbers NACKed before the first packet seen, because it came without the parameter sets that
        /// begin a stream (`StartOfStreamNACK`), and how many of them came back.
        public var startPacketsRequested = 0
        public var startPacketsRecovered = 0
        public var senderReports = 0
        public var goodbyeReceived = false
        /// SRTP/SRTCP packets whose authentication tag did not match (forged, corrupted, another key): dropped.
        public var authenticationFailures = 0
        /// SRTP/SRTCP packets already received or older than the replay window (RFC 3711 §3.3.2): dropped.
        public var replayedPackets = 0
    }

    public let configuration: Configuration
    public let localRTPAddress: SocketAddress
    private let core: ReceiverCore
    private let io: Mutex<BackgroundThread?>

    /// Opens the socket(s) and starts receiving. `onAccessUnit` runs on the receiver's thread.
    public init(configuration: Configuration, onAccessUnit: @escaping @Sendable (ReceivedAccessUnit) -> Void) throws(RTPError) {
        self.configuration = configuration
        let (rtp, rtcp) = try UDPSocketPair.open(at: configuration.localAddress, rtcpMux: configuration.rtcpMux,
                                                 receiveBufferSize: 4 << 20)
        localRTPAddress = rtp.localAddress
        let core = try ReceiverCore(configuration: configuration, rtp: rtp, rtcp: rtcp, wake: try WakeSignal(), onAccessUnit: onAccessUnit)
        self.core = core
        io = Mutex(try BackgroundThread { core.runLoop() })
    }

    public var statistics: Statistics { core.state.withLock { $0.stats } }

    /// Sends a PLI now (throttled like the automatic ones).
    public func requestKeyframe() {
        core.state.withLock { $0.pendingPictureLoss = .requested }
        core.wake.signal()
    }

    /// The application's decoder rejected an access unit (or concealed damage in it), the one with RTP timestamp
    /// `rtpTimestamp` if given: PLI now, and again with the next access units (throttled) until an IDR arrives —
    /// unless an IDR that followed it was already received. Nothing is sent with `sendPictureLossOnDrop` off.
    public func decoderFailed(rtpTimestamp: UInt32? = nil) {
        core.state.withLock { state in
            let reason = state.recovery.decoderFailed(timestamp: rtpTimestamp)
            if configuration.sendPictureLossOnDrop, let reason { state.pendingPictureLoss = reason }
        }
        core.wake.signal()
    }

    /// Stops receiving; access units still held by the reorder buffer are delivered (or reported dropped) first.
    public func close() {
        core.state.withLock { $0.closing = true }
        core.wake.signal()
        let thread = io.withLock { thread in
            defer { thread = nil }
            return thread
        }
        thread?.join()
    }

    deinit { close() }
}

/// State and loop of an `RTPReceiver`, shared with its thread (see `SenderCore` for why `@unchecked Sendable`).
final class ReceiverCore: @unchecked Sendable {
    struct State: Sendable {
        var depacketizer: H264Depacketizer
        var rtcp: RTCPReceiverSession
        var nacks = NACKScheduler()
        /// Whether a decodable IDR has arrived since the start or the last loss, and which parameter sets are known.
        var recovery: PictureRecovery
        var stats = RTPReceiver.Statistics()
        var remoteRTCP: SocketAddress?
        var pendingPictureLoss: PictureRecovery.Reason?
        /// The sequence numbers before the first packet still awaited (`StartOfStreamNACK`).
        var startPacketsAwaited: Set<UInt16> = []
        var closing = false
        let srtp: SRTPSession?
    }

    static let maxDatagram = 65536
    let configuration: RTPReceiver.Configuration
    let state: Mutex<State>
    let rtp: UDPSocket
    let rtcp: UDPSocket
    let wake: WakeSignal
    let onAccessUnit: @Sendable (ReceivedAccessUnit) -> Void
    /// Where our SRTCP is built; used only under the state lock.
    let rtcpWire: SRTPWireBuffer?

    init(configuration: RTPReceiver.Configuration, rtp: UDPSocket, rtcp: UDPSocket, wake: WakeSignal,
         onAccessUnit: @escaping @Sendable (ReceivedAccessUnit) -> Void) throws(RTPError) {
        self.configuration = configuration
        let srtp = try configuration.srtp.map { keys throws(RTPError) in try SRTPSession(configuration: keys) }
        state = Mutex(State(depacketizer: H264Depacketizer(reorderWindow: configuration.reorderWindow,
                                                           maxReorderDelay: configuration.maxReorderDelay),
                            rtcp: RTCPReceiverSession(configuration: .init(ssrc: configuration.ssrc, cname: configuration.cname)),
                            recovery: PictureRecovery(parameterSets: configuration.parameterSets), srtp: srtp))
        rtcpWire = srtp.map { _ in SRTPWireBuffer(slots: 1, maxPacketSize: 1500, trailer: SRTPSession.maxRTCPTrailer) }
        self.rtp = rtp
        self.rtcp = rtcp
        self.wake = wake
        self.onAccessUnit = onAccessUnit
    }

    func runLoop() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maxDatagram, alignment: 8)
        defer { buffer.deallocate() }
        var poller = Poller(readable: rtcp === rtp ? [rtp.fileDescriptor, wake.fileDescriptor]
                                                   : [rtp.fileDescriptor, wake.fileDescriptor, rtcp.fileDescriptor])
        while true {
            var delivered: [ReceivedAccessUnit] = []
            let closing = state.withLock { state in
                let now = wallClockNow()
                if let reason = state.pendingPictureLoss {
                    state.pendingPictureLoss = nil
                    sendPictureLoss(reason, &state, now: now)
                }
                if let report = state.rtcp.makeReportIfDue(now: now) { sendRTCP(report, &state) }
                var expired: [DepacketizerEvent] = []
                state.depacketizer.expire(now: now) { expired.append($0) }
                for event in expired { handle(event, &state, now: now, delivered: &delivered) }
                requestRetransmissions(&state, now: now)
                if state.closing {
                    var events: [DepacketizerEvent] = []
                    state.depacketizer.flush { events.append($0) }
                    for event in events { handle(event, &state, now: now, delivered: &delivered) }
                }
                return state.closing
            }
            for au in delivered { onAccessUnit(au) }
            if closing { return }
            poller.wait(timeout: .milliseconds(50))
            if poller.isReadable(wake.fileDescriptor) { wake.drain() }
            if poller.isReadable(rtp.fileDescriptor) { drain(rtp, buffer) }
            if rtcp !== rtp, poller.isReadable(rtcp.fileDescriptor) { drain(rtcp, buffer) }
        }
    }

    private func drain(_ socket: UDPSocket, _ buffer: UnsafeMutableRawBufferPointer) {
        var delivered: [ReceivedAccessUnit] = []
        while true {
            let received: (count: Int, from: SocketAddress)?
            do throws(RTPError) { received = try socket.receive(into: buffer) } catch { break }
            guard let (count, from) = received else { break }
            let now = wallClockNow()
            state.withLock { state in
                // RFC 5761 §4: with rtcp-mux, RTCP is told apart by its packet type (192…223 in the second byte),
                // which SRTP and SRTCP leave in the clear.
                let isRTCP = socket === rtcp && (socket !== rtp || (count > 1 && (192 ... 223).contains(buffer[1])))
                guard let length = unprotect(buffer, count: count, isRTCP: isRTCP, &state) else { return }
                let bytes = Array(UnsafeRawBufferPointer(rebasing: buffer[0 ..< length]))
                if isRTCP {
                    receiveRTCP(bytes, from: from, &state, now: now)
                } else {
                    receiveRTP(bytes, from: from, &state, now: now, delivered: &delivered)
                }
            }
        }
        for au in delivered { onAccessUnit(au) }
    }

    /// SRTP/SRTCP: authenticates and decrypts in place; nil (counted) for a packet that must go no further —
    /// an unauthenticated packet is never parsed, never decoded and never changes where our RTCP goes.
    private func unprotect(_ buffer: UnsafeMutableRawBufferPointer, count: Int, isRTCP: Bool, _ state: inout State) -> Int? {
        guard let srtp = state.srtp else { return count }
        do throws(RTPError) {
            return isRTCP ? try srtp.unprotectRTCP(buffer, length: count) : try srtp.unprotect(rtp: buffer, length: count)
        } catch {
            switch error.code {
            case .authenticationFailed: state.stats.authenticationFailures += 1
            case .replayed: state.stats.replayedPackets += 1
            default: state.stats.malformedPackets += 1
            }
            return nil
        }
    }

    private func receiveRTP(_ bytes: [UInt8], from: SocketAddress, _ state: inout State, now: RTPInstant, delivered: inout [ReceivedAccessUnit]) {
        guard let packet = try? RTPPacket(parsing: bytes[...]) else {
            state.stats.malformedPackets += 1
            return
        }
        if let payloadType = configuration.payloadType, packet.header.payloadType != payloadType {
            state.stats.otherPayloadTypes += 1
            return
        }
        state.stats.packetsReceived += 1
        state.stats.bytesReceived += bytes.count
        if state.remoteRTCP == nil {
            state.remoteRTCP = configuration.rtcpMux ? from : from.withPort(from.port &+ 1)
        }
        state.rtcp.rtpReceived(packet.header, arrival: now)
        let payload = try? H264Payload(parsing: packet.payload)
        var events: [DepacketizerEvent] = []
        if state.depacketizer.isAwaitingEarlierPackets {
            state.depacketizer.expire(now: now) { events.append($0) }  // their deadline may have passed
        }
        let startPacket = state.startPacketsAwaited.remove(packet.header.sequenceNumber) != nil
        let (late, duplicates) = (state.depacketizer.latePackets, state.depacketizer.duplicatePackets)
        if let payload { expectEarlierPackets(before: packet, payload, &state, now: now) }
        // Ask as soon as a packet shows there is nothing to decode from, not only once its access unit is complete —
        // unless the parameter sets missing are being asked for with a NACK (the PLI comes if it goes unanswered).
        if configuration.sendPictureLossOnDrop, let payload,
           let reason = state.recovery.packetReceived(nalUnitTypes: payload.startingNALUnitTypes),
           !(reason == .noParameterSets && state.depacketizer.isAwaitingEarlierPackets) {
            sendPictureLoss(reason, &state, now: now)
        }
        state.depacketizer.push(packet, arrival: now) { events.append($0) }
        if startPacket, state.depacketizer.latePackets == late, state.depacketizer.duplicatePackets == duplicates {
            state.stats.startPacketsRecovered += 1
        }
        for event in events { handle(event, &state, now: now, delivered: &delivered) }
        // Once the first access unit is out, what was asked for at the start has come or been given up on.
        if state.stats.accessUnits + state.stats.accessUnitsDropped > 0 { state.startPacketsAwaited = [] }
        requestRetransmissions(&state, now: now)
    }

    /// At the first packet: if it shows that the packets before it are missing (`StartOfStreamNACK`), await them
    /// (the depacketizer holds everything behind them for one NACK retry interval) so that they are NACKed at once.
    private func expectEarlierPackets(before packet: RTPPacket, _ payload: H264Payload, _ state: inout State, now: RTPInstant) {
        guard configuration.sendNACK, state.depacketizer.awaitsFirstPacket,
              let count = StartOfStreamNACK.count(firstPacket: payload, parameterSetsKnown: state.recovery.hasSequenceParameterSet
                                                  && state.recovery.hasPictureParameterSet) else { return }
        let awaited = state.depacketizer.expectEarlierPackets(count, before: packet.header.sequenceNumber,
                                                              until: now + state.nacks.retryInterval)
        state.startPacketsAwaited = Set(awaited)
        state.stats.startPacketsRequested += awaited.count
    }

    /// NACKs the holes that are due (new, or unanswered for a retry interval) while they can still be filled.
    private func requestRetransmissions(_ state: inout State, now: RTPInstant) {
        guard configuration.sendNACK else { return }
        let due = state.nacks.due(missing: state.depacketizer.missingSequenceNumbers, now: now)
        guard !due.isEmpty, let nack = state.rtcp.makeNACK(lost: due, now: now) else { return }
        state.stats.nacksSent += 1
        sendRTCP(nack, &state)
        if state.nacks.retriesDue > 0, configuration.sendPictureLossOnDrop, let reason = state.recovery.retransmissionOverdue() {
            sendPictureLoss(reason, &state, now: now)
        }
    }

    private func receiveRTCP(_ bytes: [UInt8], from: SocketAddress, _ state: inout State, now: RTPInstant) {
        do throws(RTPError) {
            try state.rtcp.receive(bytes[...], now: now)
            if case .senderReport? = try RTCPCompound.parse(bytes[...]).first {
                state.stats.senderReports += 1
                state.remoteRTCP = from  // answer where the sender's reports come from
            }
            state.stats.goodbyeReceived = state.rtcp.goodbyeReceived
        } catch {
            state.stats.malformedPackets += 1
        }
    }

    private func handle(_ event: DepacketizerEvent, _ state: inout State, now: RTPInstant, delivered: inout [ReceivedAccessUnit]) {
        switch event {
        case .accessUnit(let au):
            state.stats.accessUnits += 1
            // No decodable IDR yet (joined late, the first IDR or its parameter sets lost) or none since a loss:
            // asked again with every access unit, throttled like all PLIs.
            let types = au.nalUnits.compactMap { unit in unit.first.map { NALUnitHeader($0).nalUnitType.rawValue } }
            if let reason = state.recovery.accessUnitReceived(nalUnitTypes: types, timestamp: au.timestamp),
               configuration.sendPictureLossOnDrop {
                sendPictureLoss(reason, &state, now: now)
            }
            delivered.append(au)
        case .packetsLost(let lost):
            // Given up on: the NACKs went out while the hole was open (`requestRetransmissions`); one now would only
            // bring a packet the depacketizer would drop as late.
            state.stats.packetsLost += lost.count
        case .accessUnitDropped:
            state.stats.accessUnitsDropped += 1
            let reason = state.recovery.accessUnitLost()
            if configuration.sendPictureLossOnDrop { sendPictureLoss(reason, &state, now: now) }
        case .malformedPayload:
            state.stats.malformedPackets += 1
        }
    }

    private func sendPictureLoss(_ reason: PictureRecovery.Reason, _ state: inout State, now: RTPInstant) {
        guard let pli = state.rtcp.makePictureLossIndication(now: now) else { return }
        state.stats.pictureLossIndicationsSent += 1
        state.stats.pictureLossReasons[reason, default: 0] += 1
        sendRTCP(pli, &state)
    }

    private func sendRTCP(_ bytes: [UInt8], _ state: inout State) {
        guard let target = state.remoteRTCP else { return }
        let srtp = state.srtp, wire = rtcpWire
        bytes.withUnsafeBytes { buffer in
            do throws(RTPError) {
                let datagram = if let srtp, let wire { try wire.protect(rtcp: buffer, slot: 0, with: srtp) } else { buffer }
                _ = try rtcp.send(datagram, to: target)
            } catch {}  // RTCP is best effort: the next report or request goes out anyway
        }
    }
}
