/// Aggregation policy for the packets that carry several NAL units — RFC 6184 STAP-A and RFC 7798 AP alike — after
/// GStreamer's rtph264pay/rtph265pay `aggregate-mode`.
public enum RTPAggregation: Sendable, Hashable {
    /// Never aggregate: parameter sets go out in packets of their own.
    case none
    /// Aggregate consecutive small NAL units up to and including the first slice: parameter sets + SEI + slice leave
    /// together when they fit, and nothing waits for later slices.
    case zeroLatency
    /// Aggregate greedily across slices as long as the packet has room (libwebrtc).
    case max
}

/// The non-interleaved packetization RFC 6184 (mode 1) and RFC 7798 (no DONL) share, apart from their header bytes:
/// a NAL unit larger than a payload is fragmented, a run of small ones is aggregated by the policy, the rest go alone.
/// The codec's payloader writes the packets; this only decides which packet each NAL unit goes in.
struct NALUnitPacketization {
    var aggregation: RTPAggregation
    var maxPayloadSize: Int
    /// Bytes of the aggregation packet's own header (1 for STAP-A, 2 for an AP); each unit adds a 2-byte size.
    var aggregationHeaderSize: Int

    enum Packet: Equatable {
        case single(Int)
        case aggregate(Range<Int>)
        case fragments(Int)
    }

    /// Walks `units` in order; `packet` gets each decision. `isVCL` tells a slice from parameter sets and SEI (the
    /// zero-latency policy closes an aggregate after its first slice).
    func plan(_ units: [ArraySlice<UInt8>], isVCL: (ArraySlice<UInt8>) -> Bool, _ packet: (Packet) -> Void) {
        var index = 0
        while index < units.count {
            if units[index].count > maxPayloadSize {
                packet(.fragments(index))
                index += 1
                continue
            }
            let end = aggregationEnd(units, from: index, isVCL: isVCL)
            if end - index >= 2 {
                packet(.aggregate(index ..< end))
                index = end
            } else {
                packet(.single(index))
                index += 1
            }
        }
    }

    /// End (exclusive) of the aggregate that would start at `start` under the policy.
    private func aggregationEnd(_ units: [ArraySlice<UInt8>], from start: Int, isVCL: (ArraySlice<UInt8>) -> Bool) -> Int {
        guard aggregation != .none else { return start + 1 }
        var size = aggregationHeaderSize
        var end = start
        while end < units.count {
            // Each unit fits a payload (larger ones are fragmented), so its size fits the 16-bit size field.
            guard size + 2 + units[end].count <= maxPayloadSize else { break }
            size += 2 + units[end].count
            end += 1
            if aggregation == .zeroLatency && isVCL(units[end - 1]) { break }
        }
        return end
    }
}

/// The fragments of `data` when each holds at most `maxFragment` bytes: as few as that allows, of equal size ±1 byte
/// (the first `count % n` one byte larger, as libwebrtc), so the last packet is not a runt. No allocation.
struct EqualFragments: Sequence {
    let data: ArraySlice<UInt8>
    let count: Int
    private let base: Int
    private let larger: Int

    /// `maxFragment` ≥ 1 (the payloaders' minimum payload sizes guarantee it).
    init(_ data: ArraySlice<UInt8>, maxFragment: Int) {
        self.data = data
        count = Swift.max(1, (data.count + maxFragment - 1) / maxFragment)
        base = data.count / count
        larger = data.count % count
    }

    struct Iterator: IteratorProtocol {
        let fragments: EqualFragments
        var index = 0
        var offset: Int

        /// The next fragment and whether it is the first or the last.
        mutating func next() -> (data: ArraySlice<UInt8>, isFirst: Bool, isLast: Bool)? {
            guard index < fragments.count else { return nil }
            let size = fragments.base + (index < fragments.larger ? 1 : 0)
            defer {
                offset += size
                index += 1
            }
            return (fragments.data[offset ..< offset + size], index == 0, index == fragments.count - 1)
        }
    }

    func makeIterator() -> Iterator { Iterator(fragments: self, offset: data.startIndex) }
}

/// Remembers the last copy of each parameter set seen and puts the stored ones an access unit lacks in front of it,
/// each in its place: after a leading access unit delimiter and before the first present parameter set of a later
/// kind, else before the first other NAL unit (H.264 §7.4.1.2.3, H.265 §7.4.2.4.4 order; a decoder reads a PPS
/// against its SPS).
struct ParameterSetMemory {
    /// One slot per parameter-set kind, in decoding order (VPS, SPS, PPS / SPS, PPS).
    private(set) var stored: [[UInt8]?]

    init(_ initial: [[UInt8]?]) { stored = initial }

    /// Records `unit` in `slot` if it differs from the copy held (allocates only on a change).
    mutating func remember(_ unit: ArraySlice<UInt8>, slot: Int) {
        if stored[slot].map({ !$0.elementsEqual(unit) }) ?? true { stored[slot] = Array(unit) }
    }

    /// Appends `nalUnits` to `units`, with the stored sets whose slot bit is not set in `present` inserted when
    /// `insert` is true. `slot` gives a parameter set's slot (nil for other units). A bit mask rather than an array:
    /// no allocation per access unit.
    func append(
        _ nalUnits: [ArraySlice<UInt8>], to units: inout [ArraySlice<UInt8>], insert: Bool, present: UInt8,
        isDelimiter: (ArraySlice<UInt8>) -> Bool, slot: (ArraySlice<UInt8>) -> Int?
    ) {
        var next = insert ? 0 : stored.count  // the first slot not yet considered for insertion
        func insertMissing(before limit: Int, into units: inout [ArraySlice<UInt8>]) {
            while next < limit {
                if present & (1 << next) == 0, let set = stored[next] { units.append(set[...]) }
                next += 1
            }
        }
        for unit in nalUnits {
            if next < stored.count && !isDelimiter(unit) {
                insertMissing(before: slot(unit) ?? stored.count, into: &units)
            }
            units.append(unit)
        }
        insertMissing(before: stored.count, into: &units)  // an access unit of delimiters and parameter sets only
    }
}
