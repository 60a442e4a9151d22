/// Transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1), RTPFB
/// (PT 205) FMT 15: which transport-wide sequence numbers arrived, and when, on the receiver's clock.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  FMT=15 |    PT=205     |           length              |
///     |                     SSRC of packet sender                     |
///     |                      SSRC of media source                     |
///     |      base sequence number     |      packet status count      |
///     |                 reference time                | fb pkt. count |
///     |          packet chunk         |         packet chunk          |
///     .                                                               .
///     |         packet chunk          |  recv delta   |  recv delta   |
///     .                                                               .
///     |           recv delta          |  recv delta   | zero padding  |
///
/// Reference time: 24 bits, signed in the draft and unsigned in practice (libwebrtc wraps it), in 64 ms units — the
/// arrival of the first packet, rounded down. Packet chunks (§3.1.3, §3.1.4), 16 bits each:
/// - run length: `0 | S(2) | run length(13)` — one status symbol for a run of packets;
/// - status vector: `1 | s | symbols(14)` — s = 0: fourteen 1-bit symbols (0 not received, 1 small delta), s = 1:
///   seven 2-bit symbols (00 not received, 01 small delta, 10 large or negative delta, 11 reserved).
///
/// Receive deltas (§3.1.5), in 250 µs ticks, each relative to the arrival before it (the first one to the reference
/// time): a small delta is one unsigned byte (0–63.75 ms), a large one two bytes, signed.
public struct TransportCCFeedback: Sendable, Equatable {
    /// What the feedback says about one transport-wide sequence number.
    public enum PacketStatus: Sendable, Equatable {
        case notReceived
        /// Received, `ticks` × 250 µs after the arrival before it (0…255).
        case receivedSmallDelta(UInt8)
        /// Received, `ticks` × 250 µs after (or, negative, before) the arrival before it.
        case receivedLargeDelta(Int16)

        /// The delta in 250 µs ticks; nil when not received.
        public var deltaTicks: Int? {
            switch self {
            case .notReceived: nil
            case .receivedSmallDelta(let ticks): Int(ticks)
            case .receivedLargeDelta(let ticks): Int(ticks)
            }
        }

        /// The receive delta of `ticks` in the shorter form that holds it; nil when it fits neither (± 8.19 s).
        public static func received(deltaTicks ticks: Int) -> PacketStatus? {
            if let small = UInt8(exactly: ticks) { return .receivedSmallDelta(small) }
            if let large = Int16(exactly: ticks) { return .receivedLargeDelta(large) }
            return nil
        }

        /// §3.1.1's status symbol.
        var symbol: UInt8 {
            switch self {
            case .notReceived: 0
            case .receivedSmallDelta: 1
            case .receivedLargeDelta: 2
            }
        }
    }

    /// One receive-delta tick (§3.1.5).
    public static let deltaTick = Duration.microseconds(250)
    /// One reference-time unit (§3.1).
    public static let referenceTimeUnit = Duration.milliseconds(64)
    /// The reference time wraps at 2^24 units (about 12.4 days).
    public static let referenceTimeModulus: Int64 = 1 << 24

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var baseSequenceNumber: UInt16
    /// 24 bits, in 64 ms units.
    public var referenceTime: UInt32
    /// Counts the feedback packets the receiver sent, modulo 256 (so the sender can tell a lost one).
    public var feedbackPacketCount: UInt8
    /// One status per sequence number from `baseSequenceNumber` on (modulo 2^16); 1…65535 of them.
    public var statuses: [PacketStatus]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, referenceTime: UInt32,
                feedbackPacketCount: UInt8, statuses: [PacketStatus]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.statuses = statuses
    }

    /// The packets reported received: sequence number and arrival time relative to the reference time (the sum of
    /// the deltas so far), in report order.
    public var arrivals: [(sequenceNumber: UInt16, sinceReference: Duration)] {
        var result: [(UInt16, Duration)] = []
        var ticks: Int64 = 0
        for (index, status) in statuses.enumerated() {
            guard let delta = status.deltaTicks else { continue }
            ticks += Int64(delta)
            result.append((baseSequenceNumber &+ UInt16(truncatingIfNeeded: index), Self.deltaTick * ticks))
        }
        return result
    }

    // MARK: Wire

    /// The packet chunks for `statuses`, chosen as libwebrtc's encoder chooses them (`LastChunk`): symbols are
    /// gathered while one chunk can still hold them all — seven of any kind, fourteen without a large delta, or a
    /// run of one kind up to 8191 —, then written as a run length when all alike, else as a one-bit vector of
    /// fourteen or a two-bit vector of seven (the rest carried over).
    var chunks: [UInt16] {
        var chunks: [UInt16] = []
        var pending: [UInt8] = []  // the symbols of the chunk being filled (at most 14 kept; a run only counts)
        var count = 0
        var allSame = true
        var hasLarge = false
        func canAdd(_ symbol: UInt8) -> Bool {
            if count < 7 { return true }
            if count < 14, !hasLarge, symbol != 2 { return true }
            return count < 0x1FFF && allSame && pending[0] == symbol
        }
        func add(_ symbol: UInt8) {
            if count < 14 { pending.append(symbol) }
            allSame = allSame && symbol == pending[0]
            hasLarge = hasLarge || symbol == 2
            count += 1
        }
        func reset(_ symbols: ArraySlice<UInt8>) {
            pending = Array(symbols)
            count = pending.count
            allSame = pending.allSatisfy { $0 == pending.first }
            hasLarge = pending.contains(2)
        }
        func runLength() -> UInt16 { UInt16(pending[0]) << 13 | UInt16(count) }
        func oneBit(_ symbols: ArraySlice<UInt8>) -> UInt16 {
            var chunk: UInt16 = 0x8000
            for (i, symbol) in symbols.enumerated() { chunk |= UInt16(symbol & 1) << (13 - i) }
            return chunk
        }
        func twoBit(_ symbols: ArraySlice<UInt8>) -> UInt16 {
            var chunk: UInt16 = 0xC000
            for (i, symbol) in symbols.enumerated() { chunk |= UInt16(symbol) << (12 - 2 * i) }
            return chunk
        }
        for status in statuses {
            let symbol = status.symbol
            if !canAdd(symbol) {
                if allSame {
                    chunks.append(runLength())
                    reset([])
                } else if count == 14 {
                    chunks.append(oneBit(pending[...]))
                    reset([])
                } else {
                    chunks.append(twoBit(pending[0 ..< 7]))
                    reset(pending[7...])
                }
            }
            add(symbol)
        }
        if count > 0 {
            if allSame {
                chunks.append(runLength())
            } else if count <= 7 {
                chunks.append(twoBit(pending[...]))
            } else {
                chunks.append(oneBit(pending[...]))
            }
        }
        return chunks
    }

    /// Bytes after the common header and the two SSRCs: the fixed fields, the chunks, the deltas, zero padding.
    func fciSize(chunkCount: Int) -> Int {
        let deltas = statuses.reduce(0) { $0 + ($1.deltaTicks == nil ? 0 : $1.symbol == 1 ? 1 : 2) }
        return (8 + 2 * chunkCount + deltas + 3) / 4 * 4
    }

    func validate() throws(RTPError) {
        guard (1 ... Int(UInt16.max)).contains(statuses.count) else {
            throw .make(.fieldOverflow, "\(statuses.count) packet statuses; transport-cc feedback holds 1…65535")
        }
        guard referenceTime < 1 << 24 else { throw .make(.fieldOverflow, "reference time \(referenceTime) does not fit 24 bits") }
    }

    func marshalFCI(chunks: [UInt16], into writer: inout ByteWriter) {
        let start = writer.index
        writer.write(baseSequenceNumber)
        writer.write(UInt16(statuses.count))
        writer.writeUInt24(referenceTime)
        writer.write(feedbackPacketCount)
        for chunk in chunks { writer.write(chunk) }
        for status in statuses {
            switch status {
            case .notReceived: break
            case .receivedSmallDelta(let ticks): writer.write(ticks)
            case .receivedLargeDelta(let ticks): writer.write(UInt16(bitPattern: ticks))
            }
        }
        writer.writeZeros(fciSize(chunkCount: chunks.count) - (writer.index - start))
    }

    /// Parses the FCI (after the two SSRCs), as leniently as libwebrtc: bytes after the last delta (zero padding,
    /// or anything) are ignored, a chunk may describe more packets than the status count (the rest is unused).
    /// Refused: a status count of 0, chunks or deltas cut short, a reserved symbol (11) for a reported packet.
    static func parseFCI(senderSSRC: UInt32, mediaSSRC: UInt32, _ reader: inout ByteReader) throws(RTPError) -> TransportCCFeedback {
        let base = try reader.readUInt16("transport-cc base sequence number")
        let statusCount = Int(try reader.readUInt16("transport-cc packet status count"))
        let referenceTime = try reader.readUInt24("transport-cc reference time")
        let feedbackCount = try reader.readUInt8("transport-cc feedback packet count")
        guard statusCount > 0 else { throw .make(.invalidValue, "transport-cc feedback with no packet status", offset: reader.offset - 6) }
        var symbols: [UInt8] = []
        symbols.reserveCapacity(statusCount)
        while symbols.count < statusCount {
            let chunkOffset = reader.offset
            let chunk = try reader.readUInt16("transport-cc packet chunk (\(symbols.count) of \(statusCount) statuses read)")
            let room = statusCount - symbols.count
            if chunk & 0x8000 == 0 {
                let symbol = UInt8(chunk >> 13 & 0x3)
                let run = min(Int(chunk & 0x1FFF), room)
                guard symbol != 3 || run == 0 else {
                    throw .make(.invalidValue, "transport-cc run of the reserved status symbol 11", offset: chunkOffset)
                }
                symbols.append(contentsOf: repeatElement(symbol, count: run))
            } else if chunk & 0x4000 == 0 {
                for i in 0 ..< min(14, room) { symbols.append(UInt8(chunk >> (13 - i) & 1)) }
            } else {
                for i in 0 ..< min(7, room) {
                    let symbol = UInt8(chunk >> (12 - 2 * i) & 0x3)
                    guard symbol != 3 else {
                        throw .make(.invalidValue, "transport-cc status vector with the reserved symbol 11", offset: chunkOffset)
                    }
                    symbols.append(symbol)
                }
            }
        }
        var statuses: [PacketStatus] = []
        statuses.reserveCapacity(statusCount)
        for symbol in symbols {
            switch symbol {
            case 0: statuses.append(.notReceived)
            case 1: statuses.append(.receivedSmallDelta(try reader.readUInt8("transport-cc small receive delta")))
            default:
                let ticks = Int16(bitPattern: try reader.readUInt16("transport-cc large receive delta"))
                statuses.append(.receivedLargeDelta(ticks))
            }
        }
        return TransportCCFeedback(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: base,
                                   referenceTime: referenceTime, feedbackPacketCount: feedbackCount, statuses: statuses)
    }
}
