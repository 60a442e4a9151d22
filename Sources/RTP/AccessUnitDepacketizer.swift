import MediaCore

/// What the depacketizer tells its owner.
public enum DepacketizerEvent: Sendable {
    case accessUnit(ReceivedAccessUnit)
    /// Packets that never arrived (sequence numbers as on the wire).
    case packetsLost([UInt16])
    /// An access unit that was started but could not be completed; `timestamp` identifies it.
    case accessUnitDropped(timestamp: UInt32, reason: String)
    /// A payload broke its payload format (RFC 6184, RFC 7798); its access unit is dropped too.
    case malformedPayload(RTPError)
}

/// RTP packets of one H.264 stream → access units (RFC 6184 modes 0 and 1).
public typealias H264Depacketizer = AccessUnitDepacketizer<H264PayloadFormat>

/// RTP packets of one HEVC stream → access units (RFC 7798 without DONL; PACI unwrapped).
public typealias H265Depacketizer = AccessUnitDepacketizer<H265PayloadFormat>

/// RTP packets of one stream → access units, for any payload format that carries NAL units as single packets,
/// aggregates and fragments (`RTPPayloadFormat`: RFC 6184, RFC 7798).
///
/// Packets go through a `ReorderBuffer`, then are grouped by timestamp: an access unit ends at the marker bit or when
/// the timestamp changes. An access unit touched by a loss (a hole in sequence numbers inside it or right before
/// it, a fragment without its start) is dropped and reported rather than handed on broken.
public struct AccessUnitDepacketizer<Format: RTPPayloadFormat>: RTPDepacketizer, Sendable {
    /// Bounds on what a hostile stream can make us hold (computed: a generic type has no static stored properties).
    public static var maxAccessUnitBytes: Int { 16 << 20 }
    public static var maxNALUnitsPerAccessUnit: Int { 4096 }

    private var reorder: ReorderBuffer<RTPPacket>
    private var current: (timestamp: UInt32, units: [[UInt8]], bytes: Int, corrupt: String?)?
    private var fragment: [UInt8]?
    /// A hole was seen since the last complete access unit: the next one may be missing its head.
    private var gapPending = false

    public private(set) var accessUnitsDelivered = 0
    public private(set) var accessUnitsDropped = 0
    public private(set) var packetsLost = 0

    /// `maxReorderDelay`: how long packets may wait behind a hole before it is declared lost (see `expire`).
    public var codec: VideoCodec { Format.codec }

    public init(reorderWindow: Int = 64, maxReorderDelay: Duration? = nil) {
        reorder = ReorderBuffer(window: reorderWindow, maxDelay: maxReorderDelay)
    }

    public var latePackets: Int { reorder.latePackets }
    /// Sequence numbers still missing behind packets already received (see `ReorderBuffer.missing`).
    public var missingSequenceNumbers: [Int64] { reorder.missing }
    public var duplicatePackets: Int { reorder.duplicatePackets }

    /// When `expire` next has work (`ReorderBuffer.nextDeadline`); nil while nothing waits.
    public var nextDeadline: RTPInstant? { reorder.nextDeadline }

    /// Whether nothing has been pushed yet: the next packet is the first one seen.
    public var awaitsFirstPacket: Bool { reorder.nextExpected == nil }
    /// Whether the packets before the first one seen are still awaited (`expectEarlierPackets`).
    public var isAwaitingEarlierPackets: Bool { reorder.isAwaitingEarlier }

    /// The first packet seen shows that the `count` before it are missing (an IDR without its parameter sets): they
    /// are awaited — listed in `missingSequenceNumbers`, so they are NACKed — and everything is held behind them
    /// until they come, a packet with an SPS (HEVC: a VPS) settles where the stream begins, or `deadline` passes (`expire`);
    /// those that never come are not reported lost (the stream may begin right there). Only before anything was
    /// released, within one reorder window (`ReorderBuffer.expectEarlier`); returns the sequence numbers awaited,
    /// as on the wire, oldest first (empty if refused).
    public mutating func expectEarlierPackets(_ count: Int, before sequenceNumber: UInt16, until deadline: RTPInstant?) -> [UInt16] {
        guard let awaited = reorder.expectEarlier(count, before: sequenceNumber, until: deadline) else { return [] }
        return awaited.map { UInt16(truncatingIfNeeded: $0) }
    }

    public mutating func push(_ packet: RTPPacket, arrival: RTPInstant? = nil, events: (DepacketizerEvent) -> Void) {
        var released: [ReorderBuffer<RTPPacket>.Release] = []
        // The packet a stream begins with (its SPS, HEVC's VPS) ends the wait for anything before it.
        if reorder.isAwaitingEarlier, let content = try? Format.content(of: packet.payload),
           content.startingNALUnitTypes(Format.codec).contains(Format.streamStartNALUnitType) {
            reorder.settleStart(at: packet.header.sequenceNumber) { released.append($0) }
        }
        reorder.push(packet, sequenceNumber: packet.header.sequenceNumber, arrival: arrival) { released.append($0) }
        for release in released { handle(release, events: events) }
    }

    /// Declares holes lost whose followers waited longer than `maxReorderDelay`; call it periodically.
    public mutating func expire(now: RTPInstant, events: (DepacketizerEvent) -> Void) {
        var released: [ReorderBuffer<RTPPacket>.Release] = []
        reorder.expire(now: now) { released.append($0) }
        for release in released { handle(release, events: events) }
    }

    /// End of stream: releases held packets and finishes the last access unit.
    public mutating func flush(events: (DepacketizerEvent) -> Void) {
        var released: [ReorderBuffer<RTPPacket>.Release] = []
        reorder.flush { released.append($0) }
        for release in released { handle(release, events: events) }
        finish(events: events)
    }

    private mutating func handle(_ release: ReorderBuffer<RTPPacket>.Release, events: (DepacketizerEvent) -> Void) {
        switch release {
        case .lost(let range):
            packetsLost += range.count
            // Report at most one window's worth of numbers: a jump of thousands is a restart, not thousands of NACKs.
            events(.packetsLost(range.suffix(reorder.window).map { UInt16(truncatingIfNeeded: $0) }))
            markCorrupt("packets \(range.lowerBound & 0xFFFF)…\(range.upperBound & 0xFFFF) lost")
            gapPending = true
        case .packet(let packet, _):
            assemble(packet, events: events)
        }
    }

    private mutating func assemble(_ packet: RTPPacket, events: (DepacketizerEvent) -> Void) {
        if let current {
            if current.timestamp != packet.header.timestamp {
                finish(events: events)
            } else {
                gapPending = false  // the hole was inside this access unit (already marked), not before the next
            }
        }
        if current == nil {
            current = (packet.header.timestamp, [], 0, gapPending ? "a loss right before it" : nil)
            gapPending = false
        }
        do throws(RTPError) {
            switch try Format.content(of: packet.payload) {
            case .single(let unit): append(unit)
            case .aggregate(let units): for unit in units { append(unit) }
            case .fragment(let header, let start, let end, let data):
                if start {
                    if fragment != nil { markCorrupt("FU restarted before its end") }
                    var unit: [UInt8] = []
                    unit.reserveCapacity(header.count + data.count)
                    unit.append(header.first)
                    if let second = header.second { unit.append(second) }
                    unit.append(contentsOf: data)
                    fragment = unit
                } else if fragment == nil {
                    markCorrupt("FU fragment without its start")
                } else if let held = fragment?.count, held + data.count > Self.maxAccessUnitBytes {
                    // Endless middle fragments must not grow memory without bound.
                    fragment = nil
                    markCorrupt("FU NAL unit larger than \(Self.maxAccessUnitBytes) bytes")
                } else {
                    fragment?.append(contentsOf: data)
                    if end, let whole = fragment {
                        fragment = nil
                        append(whole[...])
                    }
                }
            }
        } catch {
            events(.malformedPayload(error))
            markCorrupt("malformed payload: \(error.reason)")
        }
        if packet.header.marker { finish(events: events) }
    }

    private mutating func append(_ unit: ArraySlice<UInt8>) {
        guard var au = current else { return }
        current = nil  // keep the array uniquely referenced while appending
        if au.units.count >= Self.maxNALUnitsPerAccessUnit || au.bytes + unit.count > Self.maxAccessUnitBytes {
            au.corrupt = au.corrupt ?? "access unit exceeds \(Self.maxNALUnitsPerAccessUnit) NAL units or \(Self.maxAccessUnitBytes) bytes"
        } else {
            au.units.append(Array(unit))
            au.bytes += unit.count
        }
        current = au
    }

    private mutating func markCorrupt(_ reason: String) {
        if current != nil, current?.corrupt == nil { current?.corrupt = reason }
    }

    private mutating func finish(events: (DepacketizerEvent) -> Void) {
        guard let au = current else { return }
        current = nil
        if fragment != nil {
            fragment = nil
            accessUnitsDropped += 1
            events(.accessUnitDropped(timestamp: au.timestamp, reason: au.corrupt ?? "FU without its end"))
        } else if let reason = au.corrupt {
            accessUnitsDropped += 1
            events(.accessUnitDropped(timestamp: au.timestamp, reason: reason))
        } else if au.units.isEmpty {
            accessUnitsDropped += 1
            events(.accessUnitDropped(timestamp: au.timestamp, reason: "no NAL units"))
        } else {
            accessUnitsDelivered += 1
            events(.accessUnit(ReceivedAccessUnit(codec: Format.codec, timestamp: au.timestamp, nalUnits: au.units)))
        }
    }
}
