import Bitstream
import NetworkEmulator
import Testing
@testable import RTP
@testable import RTPOut

/// The closed loop in virtual time, str0m's `progress()` for rtenc: `RTPSendSession` → `NetworkLink` (loss, delay,
/// jitter) → `RTPReceiveSession` → its RTCP back through a second `NetworkLink` → the sender, 20 s of 720p30 access
/// units shaped like x264's. A discrete-event loop jumps from one due time to the next (a frame, a session's
/// `nextTimeout()`, a link's `nextDelivery`): no sockets, no threads, no sleeps, no clock read but the one that
/// prints how long the run took.
struct VirtualTimeLoopTests {
    /// 5 % loss each way, 50 ms ± 10 ms one way: the issue's path.
    static let lossy = ImpairmentProfile(loss: .random(rate: 0.05), delay: .milliseconds(50), jitter: .milliseconds(10))

    @Test func nackRecoversAlmostEveryFrameAndIsDeterministic() throws {
        let clock = ContinuousClock()
        let started = clock.now
        let first = try VirtualTimeLoop.run(seed: 13, forward: Self.lossy, backward: Self.lossy)
        let elapsed = clock.now - started
        print("VirtualTimeLoopTests: 20 s of 720p30 over 5 % loss, 50 ms: ran in \(elapsed) of wall time; \(first)")
        let second = try VirtualTimeLoop.run(seed: 13, forward: Self.lossy, backward: Self.lossy)
        #expect(first.digest == second.digest, "the same seed must give the same run, bit for bit")
        #expect(first == second)
        let other = try VirtualTimeLoop.run(seed: 14, forward: Self.lossy, backward: Self.lossy)
        #expect(other.digest != first.digest, "another seed, other losses")

        for outcome in [first, other] {
            #expect(outcome.framesSent == VirtualTimeLoop.frames)
            #expect(outcome.mismatched == 0, "every access unit delivered is the one sent, byte for byte")
            // The links really lost packets, and NACK/retransmission brought (nearly) all of them back.
            #expect(outcome.forwardDropped >= outcome.packetsSent / 40, "\(outcome)")
            #expect(outcome.receiver.nacksSent > 0 && outcome.retransmissions > 0, "\(outcome)")
            #expect(outcome.framesDelivered * 100 >= outcome.framesSent * 99, "NACK/RTX must recover ≥ 99 % of frames: \(outcome)")
            #expect(outcome.receiver.pictureLossReasons.values.reduce(0, +) == outcome.receiver.pictureLossIndicationsSent)
            #expect(outcome.longestRecovery ?? 0 <= 30, "a frame lost for good is repaired by an IDR within a second: \(outcome)")
        }
    }

    /// Packet 1000 and every retransmission of it are dropped: NACKs cannot fill the hole, the receiver gives it up
    /// and sends a PLI (access_unit_lost), the sender reports a keyframe request, the next IDR arrives and decodes.
    @Test func anUnrecoverableFrameEndsInPLIAndAKeyframe() throws {
        var forward = Self.lossy
        forward.dropPackets = PacketNumbers([1000 ... 1000])
        forward.dropRetransmissions = true
        let outcome = try VirtualTimeLoop.run(seed: 7, forward: forward, backward: Self.lossy)
        print("VirtualTimeLoopTests: packet 1000 unrecoverable: \(outcome)")
        #expect(outcome.forwardDroppedByFilter >= 2, "the packet and at least one retransmission of it")
        #expect((outcome.receiver.pictureLossReasons[.accessUnitLost] ?? 0) >= 1, "\(outcome)")
        #expect(outcome.senderKeyframeRequests >= 1, "the PLI reached the sender as a keyframe request: \(outcome)")
        #expect(outcome.keyframesSent >= 2 && outcome.keyframesDelivered >= 2, "an IDR answered: \(outcome)")
        #expect(outcome.mismatched == 0)
        // Given up 300 ms (9 frames) after the hole showed, PLI and IDR over 2 × 50 ms, the IDR's own losses NACKed:
        // every loss is repaired by an IDR within a second.
        #expect(outcome.longestRecovery ?? 0 <= 30, "\(outcome)")
    }
}

/// The sender and receiver sessions, two links and a synthetic encoder, run to the end in virtual time.
enum VirtualTimeLoop {
    static let frames = 600  // 20 s at 30 fps
    static let start = RTPInstant(nanosecondsSinceEpoch: 1_700_000_000 * 1_000_000_000)
    /// Time for the last frame's retransmissions and the last reports after the last frame.
    static let tail: Duration = .seconds(2)

    /// What one run did; `digest` covers every access unit delivered (bytes and timestamp) and every event, in order.
    struct Outcome: Equatable, CustomStringConvertible {
        var digest: UInt64 = 0
        var framesSent = 0
        var keyframesSent = 0
        var framesDelivered = 0
        var keyframesDelivered = 0
        /// Delivered, and every frame since the last delivered IDR delivered too: what a decoder shows cleanly.
        var framesDecodable = 0
        /// The most frames from one that was not delivered to the next IDR that was (nil: none was missing).
        var longestRecovery: Int?
        var mismatched = 0
        var senderKeyframeRequests = 0
        var packetsSent = 0
        var retransmissions = 0
        var forwardDropped = 0
        var forwardDroppedByFilter = 0
        var backwardDropped = 0
        var receiver = RTPReceiveStatistics()

        var description: String {
            "frames \(framesDelivered)/\(framesSent) delivered, \(framesDecodable) decodable (longest recovery \(longestRecovery.map { "\($0) frames" } ?? "none")), keyframes \(keyframesDelivered)/\(keyframesSent), "
                + "packets \(packetsSent) (+\(retransmissions) retransmitted), link drops \(forwardDropped) forward (\(forwardDroppedByFilter) by filter) / \(backwardDropped) back, "
                + "NACKs \(receiver.nacksSent), lost \(receiver.packetsLost), dropped AUs \(receiver.accessUnitsDropped), "
                + "PLIs \(receiver.pictureLossIndicationsSent) \(receiver.pictureLossReasons.map { "\($0.key.rawValue): \($0.value)" }.sorted()), "
                + "keyframe requests at the sender \(senderKeyframeRequests), digest \(String(digest, radix: 16))"
        }
    }

    static func run(seed: UInt64, forward forwardProfile: ImpairmentProfile, backward backwardProfile: ImpairmentProfile) throws -> Outcome {
        var sender = try RTPSendSession(
            configuration: .init(ssrc: 0x1111_1111, cname: "loop-sender", payloader: .init(maxPayloadSize: 1200),
                                 pacing: .paced(targetBitrate: 2_000_000), initialSequenceNumber: 65_000, timestampOffset: 0xFFFF_0000),
            random: NetworkEmulator.SeededGenerator(seed: seed))
        var receiver = RTPReceiveSession(configuration: .init(ssrc: 0x2222_2222, cname: "loop-receiver"))
        var forward = try NetworkLink<[UInt8]>(profile: forwardProfile, seed: seed &+ 1)
        var backward = try NetworkLink<[UInt8]>(profile: backwardProfile, seed: seed &+ 2)
        var encoder = SyntheticEncoder(seed: seed &+ 3)
        var outcome = Outcome()
        var digest = Digest()
        var sent: [UInt32: (nalUnits: [[UInt8]], isKeyframe: Bool, index: Int)] = [:]
        var deliveredIndices: [Int: Bool] = [:]  // frame index → keyframe
        let end = frameTime(frames - 1) + tail

        var now = start
        var nextFrame = 0
        var stalls = 0
        while true {
            var due: [RTPInstant] = []
            if nextFrame < frames { due.append(frameTime(nextFrame)) }
            if let t = sender.nextTimeout() { due.append(t) }
            if let t = receiver.nextTimeout() { due.append(t) }
            if let t = forward.nextDelivery { due.append(instant(t)) }
            if let t = backward.nextDelivery { due.append(instant(t)) }
            guard let next = due.min(), next <= end else { break }
            stalls = next <= now ? stalls + 1 : 0
            guard stalls < 1000 else {
                Issue.record("the loop does not advance at \(now - start): sender \(String(describing: sender.nextTimeout().map { $0 - start })), receiver \(String(describing: receiver.nextTimeout().map { $0 - start })), links \(String(describing: forward.nextDelivery)) \(String(describing: backward.nextDelivery)), queued \(sender.queuedPackets)")
                break
            }
            now = max(now, next)

            if nextFrame < frames, frameTime(nextFrame) <= now {
                let unit = encoder.next(index: nextFrame)
                let timestamp = try sender.enqueue(unit, captureTime: now, at: now)
                sent[timestamp] = (unit.nalUnitBytes.map(Array.init), unit.isKeyframe, nextFrame)
                outcome.framesSent += 1
                if unit.isKeyframe { outcome.keyframesSent += 1 }
                nextFrame += 1
            }
            forward.deliver(at: now - start) { datagram in
                // RFC 5761 §4: RTCP (the sender's SRs) told apart from RTP by the packet type.
                if datagram.count > 1, (192 ... 223).contains(datagram[1]) {
                    receiver.handle(rtcp: datagram, at: now)
                } else {
                    receiver.handle(rtp: datagram, at: now)
                }
            }
            backward.deliver(at: now - start) { datagram in sender.handle(rtcp: datagram[...], at: now) }
            if let t = receiver.nextTimeout(), t <= now { receiver.handleTimeout(at: now) }

            while let transmit = sender.pollTransmit(at: now) {
                for datagram in transmit.datagrams {
                    offer(Array(datagram), isRTP: transmit.kind == RTPTransmit.Kind.rtp, to: &forward, at: now)
                }
                sender.didTransmit(transmit.count, at: now)
            }
            while let datagram = receiver.pollTransmit(at: now) {
                backward.offer(datagram, bytes: datagram.count, at: now - start)
            }
            while let event = sender.pollEvent() {
                digest.add("sender \(event)")
                if case .keyframeRequested = event {
                    outcome.senderKeyframeRequests += 1
                    encoder.keyframeRequested = true
                }
            }
            while let event = receiver.pollEvent() {
                guard case .accessUnit(let unit) = event else {
                    digest.add("receiver \(event)")
                    continue
                }
                digest.add(unit.rtpTimestamp)
                for nalUnit in unit.received.nalUnits { digest.add(nalUnit) }
                outcome.framesDelivered += 1
                if unit.isKeyframe { outcome.keyframesDelivered += 1 }
                if let original = sent[unit.rtpTimestamp], original.nalUnits == unit.received.nalUnits {
                    deliveredIndices[original.index] = original.isKeyframe
                } else {
                    outcome.mismatched += 1
                }
            }
        }
        receiver.close(at: now)
        while let event = receiver.pollEvent() { digest.add("receiver \(event)") }

        var decodable = false
        var missingSince: Int?
        for index in 0 ..< frames {
            if let keyframe = deliveredIndices[index] {
                if keyframe, let missing = missingSince {
                    outcome.longestRecovery = max(outcome.longestRecovery ?? 0, index - missing)
                    missingSince = nil
                }
                decodable = decodable || keyframe
                if decodable { outcome.framesDecodable += 1 }
            } else {
                decodable = false
                if missingSince == nil { missingSince = index }
            }
        }
        if missingSince != nil { outcome.longestRecovery = .max }  // never recovered
        let statistics = sender.statistics(at: now)
        outcome.packetsSent = statistics.packetsSent
        outcome.retransmissions = statistics.packetsRetransmitted
        outcome.forwardDropped = forward.statistics.dropped
        outcome.forwardDroppedByFilter = forward.statistics.droppedPackets
        outcome.backwardDropped = backward.statistics.dropped
        outcome.receiver = receiver.statistics
        var counts = receiver.statistics
        let reasons = counts.pictureLossReasons.map { "\($0.key.rawValue) \($0.value)" }.sorted()  // a Dictionary's order
        counts.pictureLossReasons = [:]  // changes from process to process (seeded hashing): not in the digest
        digest.add("\(counts) \(reasons)")
        outcome.digest = digest.value
        return outcome
    }

    /// Puts a datagram on the link; RTP with its timestamp and sequence number, for the link's debug filters.
    static func offer(_ bytes: [UInt8], isRTP: Bool, to link: inout NetworkLink<[UInt8]>, at now: RTPInstant) {
        guard isRTP, let header = try? RTPPacket(parsing: bytes).header else {
            link.offer(bytes, bytes: bytes.count, at: now - start)
            return
        }
        link.offer(bytes, bytes: bytes.count, rtpTimestamp: header.timestamp, rtpSequenceNumber: header.sequenceNumber, at: now - start)
    }

    /// A link's time (a `Duration` since `start`, finer than a nanosecond with jitter) as the first instant at or
    /// after it, so that the link delivers at that instant.
    static func instant(_ linkTime: Duration) -> RTPInstant {
        let nanoseconds = linkTime.nanoseconds
        return start + .nanoseconds(Duration.nanoseconds(nanoseconds) < linkTime ? nanoseconds + 1 : nanoseconds)
    }

    static func frameTime(_ index: Int) -> RTPInstant {
        start + .nanoseconds(Int64(index) * 1_000_000_000 / 30)
    }
}

/// Access units shaped like x264's at 720p30 (preset veryfast, zerolatency, 2 threads: two slices a frame): an IDR
/// of 40–60 kB with SPS and PPS in front, P frames of 1.5–6 kB. The bytes after each NAL unit header are random but
/// never 0, so no start code can appear inside a NAL unit. Sizes and bytes come from a seeded generator.
struct SyntheticEncoder {
    /// SPS and PPS of x264 High@3.1 1280×720 (the shape; their content is not parsed on the RTP path).
    static let sps: [UInt8] = [0x67, 0x64, 0x00, 0x1F, 0xAC, 0xD9, 0x40, 0x50, 0x05, 0xBB, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00,
                               0x10, 0x00, 0x00, 0x03, 0x03, 0xC0, 0xF1, 0x83, 0x19, 0x60]
    static let pps: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]

    var generator: NetworkEmulator.SeededGenerator
    /// The next frame is an IDR (the first one, and after a keyframe request).
    var keyframeRequested = true

    init(seed: UInt64) { generator = NetworkEmulator.SeededGenerator(seed: seed) }

    mutating func next(index: Int) -> CodedAccessUnit {
        let keyframe = keyframeRequested
        keyframeRequested = false
        let size = keyframe ? Int.random(in: 40_000 ... 60_000, using: &generator) : Int.random(in: 1_500 ... 6_000, using: &generator)
        let firstSlice = size / 2 + Int.random(in: -200 ... 200, using: &generator)
        let header: UInt8 = keyframe ? 0x65 : 0x41  // IDR slice (NRI 3) / non-IDR slice (NRI 2)
        var nalUnits: [[UInt8]] = keyframe ? [Self.sps, Self.pps] : []
        nalUnits.append(slice(header, size: firstSlice))
        nalUnits.append(slice(header, size: size - firstSlice))
        return CodedAccessUnit(joiningAnnexB: nalUnits, codec: .h264, isKeyframe: keyframe,
                               presentationTime: MediaTime(value: Int64(index), timescale: 30))
    }

    private mutating func slice(_ header: UInt8, size: Int) -> [UInt8] {
        var unit = [UInt8](repeating: 0, count: size)
        unit[0] = header
        var word: UInt64 = 0
        for i in 1 ..< size {
            if i % 8 == 1 { word = generator.next() }  // eight bytes a draw: the debug build is slow per call
            unit[i] = max(1, UInt8(truncatingIfNeeded: word))
            word >>= 8
        }
        return unit
    }
}

/// FNV-1a, 64 bits: a digest of everything a run delivered, to compare runs bit for bit.
struct Digest {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func add(_ bytes: [UInt8]) {
        var value = self.value
        bytes.withUnsafeBufferPointer { buffer in  // not generic: the debug build would spend the run here
            for byte in buffer {
                value ^= UInt64(byte)
                value &*= 0x0000_0100_0000_01B3
            }
        }
        self.value = value
    }

    mutating func add(_ number: UInt32) { add(withUnsafeBytes(of: number.bigEndian) { Array($0) }) }
    mutating func add(_ text: String) { add(Array(text.utf8)) }
}
