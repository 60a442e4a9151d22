import Bitstream
import Glibc

/// One access unit (one coded picture) read from an Annex-B file: the `CodedAccessUnit` every rtenc module hands on
/// (`accessUnit`: give it to `RTPSender.send`), with the names this type has always had as views of it.
public struct AnnexBAccessUnit: Sendable, Hashable {
    /// Annex-B framing with a 4-byte start code in front of each NAL unit, the NAL units found once by the reader,
    /// the keyframe flag from the access-unit splitter (an IDR picture), timed at frame count over the frame rate.
    public var accessUnit: CodedAccessUnit

    public init(accessUnit: CodedAccessUnit) {
        self.accessUnit = accessUnit
    }

    /// The NAL units with a 4-byte start code (`00 00 00 01`) in front of each.
    public var bytes: [UInt8] { accessUnit.bytes }
    /// nal_unit_type of each NAL unit, in order (H.264 Table 7-1, H.265 Table 7-1).
    public var nalUnitTypes: [UInt8] { accessUnit.nalUnits.map(\.type) }
    /// Where each NAL unit (without its start code) lies in `bytes`, in order: callers that want NAL units need
    /// not scan for start codes again.
    public var nalUnitRanges: [Range<Int>] { accessUnit.nalUnits.map(\.range) }
    /// Frame count over the given frame rate: an elementary stream carries no timestamps.
    public var pts: MediaTime { accessUnit.presentationTime }
    /// True when the access unit is an IDR picture (H.265: an IRAP one), as the splitter found it.
    public var isKeyframe: Bool { accessUnit.isKeyframe }
}

/// Reads an H.264 or H.265 Annex-B elementary stream (`.h264`, `.h265`) and groups its NAL units into access units,
/// streaming (the file is never held whole).
///
/// This file does the byte side (start codes, streaming, bounds); grouping NAL units into access units (H.264
/// §7.4.1.2.3/§7.4.1.2.4, slice header comparisons; H.265 §7.4.2.4.4) is the Bitstream module's
/// `H264.AccessUnitSplitter` or `HEVC.AccessUnitSplitter`.
/// Several slices of one picture (x264 with sliced threads) stay in one access unit.
public final class AnnexBFileReader {
    /// The largest NAL unit accepted: a 4K intra picture at very high quality stays well under this; the bound stops
    /// a file without start codes from being buffered whole.
    public static let maximumNALUnitSize = 64 * 1024 * 1024

    public let path: String
    public let frameRate: Rational
    public let codec: VideoCodec

    private let input: FileInput
    private var pending: [UInt8] = []
    /// Index in `pending` where the current NAL unit's payload starts (after its start code), once one was found.
    private var payloadStart: Int?
    /// Bytes at the front of `pending` already returned (dropped at the next read).
    private var consumed = 0
    /// Where the start-code search resumes: everything before it was searched.
    private var scanned = 0
    private var endOfInput = false
    private var splitter: Splitter
    private var flushed = false
    private var accessUnitsRead = 0

    /// The codec's access-unit grouping as Bitstream has it: exactly one of the two is set, and optional chaining
    /// mutates it in place (no copy of the NAL units it holds).
    private struct Splitter {
        var h264: H264.AccessUnitSplitter?
        var hevc: HEVC.AccessUnitSplitter?

        /// The NAL units and keyframe flag (IDR; H.265: IRAP) of the access unit `nal` completed, if any.
        mutating func append(_ nal: ArraySlice<UInt8>) -> (nalUnits: [ArraySlice<UInt8>], isKeyframe: Bool)? {
            if let unit = h264?.append(nal) { return (unit.nalUnits, unit.isIDR) }
            return hevc?.append(nal).map { ($0.nalUnits, $0.isIRAP) }
        }

        mutating func flush() -> (nalUnits: [ArraySlice<UInt8>], isKeyframe: Bool)? {
            if let unit = h264?.flush() { return (unit.nalUnits, unit.isIDR) }
            return hevc?.flush().map { ($0.nalUnits, $0.isIRAP) }
        }
    }

    public init(path: String, frameRate: Rational, codec: VideoCodec = .h264) throws(MediaIOError) {
        guard frameRate.numerator > 0, frameRate.denominator > 0 else {
            throw .make(.invalidArgument, "frame rate \(frameRate) must be positive")
        }
        self.path = path
        self.frameRate = frameRate
        self.codec = codec
        splitter = codec == .hevc ? Splitter(hevc: HEVC.AccessUnitSplitter()) : Splitter(h264: H264.AccessUnitSplitter())
        input = try FileInput(path: path)
    }

    /// The next access unit, or nil at the end of the file.
    public func nextAccessUnit() throws(MediaIOError) -> AnnexBAccessUnit? {
        while true {
            guard let nal = try nextNALUnit() else {
                guard !flushed else { return nil }
                flushed = true
                return splitter.flush().map(makeAccessUnit)
            }
            if let completed = splitter.append(nal[...]) { return makeAccessUnit(completed) }
        }
    }

    private func makeAccessUnit(_ unit: (nalUnits: [ArraySlice<UInt8>], isKeyframe: Bool)) -> AnnexBAccessUnit {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(unit.nalUnits.reduce(0) { $0 + $1.count } + 4 * unit.nalUnits.count)
        var nalUnits: [CodedAccessUnit.NALUnit] = []
        nalUnits.reserveCapacity(unit.nalUnits.count)
        for nal in unit.nalUnits {
            bytes.append(contentsOf: Self.startCode)
            // The splitter drops no NAL unit, however short: a header-less one gets type 0.
            let type = nal.first.map { codec.nalUnitType(firstByte: $0) } ?? 0
            nalUnits.append(.init(type: type, range: bytes.count ..< bytes.count + nal.count))
            bytes.append(contentsOf: nal)
        }
        let pts = MediaTime(value: Int64(accessUnitsRead) * Int64(frameRate.denominator),
                            timescale: Int64(frameRate.numerator))
        accessUnitsRead += 1
        return AnnexBAccessUnit(accessUnit: CodedAccessUnit(
            codec: codec, bytes: bytes, framing: .annexB, nalUnits: nalUnits, isKeyframe: unit.isKeyframe, presentationTime: pts))
    }

    private static let startCode: [UInt8] = [0, 0, 0, 1]

    /// The next NAL unit without its start code and trailing zero bytes; nil at the end of the input.
    ///
    /// `pending[consumed...]` is what is not yet returned; the consumed front is dropped only when more is read, so
    /// each byte is moved once per read instead of once per NAL unit, and `scanned` keeps the start-code search
    /// from going over the same bytes again after a read.
    private func nextNALUnit() throws(MediaIOError) -> [UInt8]? {
        while true {
            if let start = payloadStart, let (codeStart, codeEnd) = findStartCode(from: max(start, scanned)) {
                var end = codeStart
                while end > start, pending[end - 1] == 0 { end -= 1 } // trailing_zero_8bits
                let nal = Array(pending[start..<end])
                consumed = codeEnd
                payloadStart = codeEnd
                scanned = codeEnd
                if nal.isEmpty { continue }
                return nal
            }
            if payloadStart == nil, let (codeStart, codeEnd) = findStartCode(from: consumed) {
                guard !pending[consumed..<codeStart].contains(where: { $0 != 0 }) else {
                    throw .make(.invalidFormat, "\(path) does not begin with an Annex-B start code")
                }
                consumed = codeEnd
                payloadStart = codeEnd
                scanned = codeEnd
                continue
            }
            if endOfInput {
                guard let start = payloadStart else {
                    if pending[consumed...].contains(where: { $0 != 0 }) {
                        throw .make(.invalidFormat, "\(path) contains no Annex-B start code")
                    }
                    return nil
                }
                var end = pending.count
                while end > start, pending[end - 1] == 0 { end -= 1 }
                let nal = Array(pending[start..<end])
                pending.removeAll(keepingCapacity: true)
                consumed = 0
                scanned = 0
                payloadStart = nil
                return nal.isEmpty ? nil : nal
            }
            guard pending.count - consumed <= Self.maximumNALUnitSize else {
                throw .make(.limitExceeded, "\(path): a NAL unit is larger than \(Self.maximumNALUnitSize) bytes")
            }
            // A start code may straddle the read: scan again from two bytes before the old end.
            scanned = max(consumed, pending.count - 2)
            try readMore()
        }
    }

    /// The first `00 00 01` at or after `index`: where its zero bytes start and where the payload begins.
    /// memchr finds each 01 byte (rare in slice data), then the two bytes before it are checked.
    private func findStartCode(from index: Int) -> (Int, Int)? {
        pending.withUnsafeBufferPointer { bytes -> (Int, Int)? in
            guard let base = bytes.baseAddress else { return nil }
            var position = index + 2  // where the 01 of a start code beginning at `index` would be
            while position < bytes.count {
                guard let hit = memchr(base + position, 1, bytes.count - position) else { return nil }
                let one = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if bytes[one - 1] == 0, bytes[one - 2] == 0 { return (one - 2, one + 1) }
                position = one + 1
            }
            return nil
        }
    }

    private func readMore() throws(MediaIOError) {
        if consumed > 0 {
            pending.removeSubrange(0..<consumed)
            if let start = payloadStart { payloadStart = start - consumed }
            scanned -= consumed
            consumed = 0
        }
        let chunk = FileInput.readAheadSize
        let oldCount = pending.count
        pending.append(contentsOf: repeatElement(0, count: chunk))
        var got = 0
        var failure: MediaIOError?
        pending.withUnsafeMutableBytes { bytes in
            do throws(MediaIOError) {
                got = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[oldCount...]))
            } catch {
                failure = error
            }
        }
        pending.removeSubrange((oldCount + got)...)
        if let failure { throw failure }
        if got < chunk { endOfInput = true }
    }
}
