extension H264 {
    /// Groups a stream of NAL units into access units, one NAL unit at a time, so it works on an endless stream.
    ///
    /// It keeps the SPS and PPS tables by id (the latest of each id wins) to parse slice headers, and detects the
    /// first VCL NAL unit of each new primary coded picture by the comparisons of §7.4.1.2.4. Where a slice header
    /// cannot be parsed (its PPS was never seen, e.g. after joining mid-stream), first_mb_in_slice == 0 alone marks
    /// a new picture.
    ///
    ///     var splitter = H264.AccessUnitSplitter()
    ///     for nal in nalUnits { if let au = splitter.append(nal) { handle(au) } }
    ///     if let last = splitter.flush() { handle(last) }
    public struct AccessUnitSplitter: Sendable {
        /// Bound on NAL units held for one access unit, so a stream that never starts a new picture cannot grow the
        /// buffer without end. Real encoders put a few to a few hundred NAL units (slices, SEI) in one access unit;
        /// past this bound the access unit is cut.
        public static let maxNALUnitsPerAccessUnit = 4096

        public private(set) var parameterSets = ParameterSets()
        /// The last error from parsing a parameter set (the NAL unit is still passed on in its access unit).
        public private(set) var lastParameterSetError: BitstreamError?

        private var pending: [ArraySlice<UInt8>] = []
        /// Whether `pending` holds a VCL NAL unit of a primary picture.
        private var pendingHasPrimaryVCL = false
        /// §7.4.1.2.4 compares with the previous primary slice.
        private var pendingLastSlice: SliceIdentity?
        private var pendingFirstHeader: SliceHeader?
        private var pendingHeaderError: BitstreamError?
        private var pendingSliceType: SliceType?

        public init() {}

        /// Adds the next NAL unit (header byte first, no start code). Returns the access unit this NAL unit
        /// completed, if it is the first NAL unit of the next one. Empty NAL units are ignored.
        public mutating func append(_ nalUnit: ArraySlice<UInt8>) -> AccessUnit? {
            guard let first = nalUnit.first else { return nil }
            let type = NALUnitHeader(first).nalUnitType
            var completed: AccessUnit?

            switch type.rawValue {
            case 1, 2, 5:
                let slice = parseSlice(nalUnit)
                // A redundant slice (redundant_pic_cnt > 0) never starts a picture; it joins the current one.
                if slice.identity.redundantPicCnt == 0, pendingHasPrimaryVCL, let previous = pendingLastSlice,
                    slice.identity.startsNewPicture(after: previous)
                {
                    completed = cut()
                }
                if slice.identity.redundantPicCnt == 0 {
                    if !pendingHasPrimaryVCL {
                        pendingHasPrimaryVCL = true
                        pendingFirstHeader = slice.header
                        pendingHeaderError = slice.error
                    }
                    pendingSliceType = Self.merge(pendingSliceType, slice.header?.sliceType)
                    pendingLastSlice = slice.identity
                }
            case 6, 7, 8, 9, 14...18:
                // §7.4.1.2.3: these start a new access unit when they follow the last VCL NAL unit of a picture.
                if pendingHasPrimaryVCL {
                    completed = cut()
                }
                if type == .sps || type == .pps {
                    do {
                        try parameterSets.update(nalUnit: nalUnit)
                    } catch {
                        lastParameterSetError = error
                    }
                }
            default:
                // 3, 4 (data partitions B, C), 10, 11 (end of sequence/stream), 12 (filler), 13, 19, 20, 21 and
                // reserved types belong to the access unit in progress.
                break
            }

            if pending.count >= Self.maxNALUnitsPerAccessUnit, completed == nil {
                completed = cut()
            }
            pending.append(nalUnit)
            return completed
        }

        /// Ends the stream: returns the access unit in progress, if any NAL units are pending.
        public mutating func flush() -> AccessUnit? {
            pending.isEmpty ? nil : cut()
        }

        private mutating func cut() -> AccessUnit {
            let unit = AccessUnit(
                nalUnits: pending, firstSliceHeader: pendingFirstHeader, sliceHeaderError: pendingHeaderError,
                primarySliceType: pendingSliceType)
            pending = []
            pendingHasPrimaryVCL = false
            pendingLastSlice = nil
            pendingFirstHeader = nil
            pendingHeaderError = nil
            pendingSliceType = nil
            return unit
        }

        private static func merge(_ current: SliceType?, _ next: SliceType?) -> SliceType? {
            guard let next else { return current }
            guard let current else { return next }
            if current == .b || next == .b { return .b }
            if !current.isIntra || !next.isIntra { return .p }
            return current == .si && next == .si ? .si : .i
        }

        private func parseSlice(_ nalUnit: ArraySlice<UInt8>) -> (
            identity: SliceIdentity, header: SliceHeader?, error: BitstreamError?
        ) {
            do {
                let header = try SliceHeader(nalUnit: nalUnit, parameterSets: parameterSets)
                let pps = parameterSets.pictureParameterSets[header.picParameterSetId]
                let sps = pps.flatMap { parameterSets.sequenceParameterSets[$0.seqParameterSetId] }
                return (SliceIdentity(header, picOrderCntType: sps?.picOrderCntType ?? 0), header, nil)
            } catch {
                return (SliceIdentity(fallbackFor: nalUnit), nil, error)
            }
        }
    }

    /// The slice header fields §7.4.1.2.4 compares to find the first VCL NAL unit of a new primary picture.
    struct SliceIdentity: Sendable {
        var firstMbInSlice: Int
        /// Nil when the header did not parse: only first_mb_in_slice is known.
        var fields: Fields?
        var redundantPicCnt: Int

        struct Fields: Equatable, Sendable {
            var frameNum: Int
            var picParameterSetId: Int
            var fieldPicFlag: Bool
            var bottomFieldFlag: Bool?
            var nalRefIdcIsZero: Bool
            var picOrderCntType: Int
            var picOrderCntLsb: Int?
            var deltaPicOrderCntBottom: Int?
            var deltaPicOrderCnt0: Int?
            var deltaPicOrderCnt1: Int?
            var idrPicFlag: Bool
            var idrPicId: Int?
        }

        init(_ header: SliceHeader, picOrderCntType: Int) {
            firstMbInSlice = header.firstMbInSlice
            redundantPicCnt = header.redundantPicCnt ?? 0
            fields = Fields(
                frameNum: header.frameNum, picParameterSetId: header.picParameterSetId,
                fieldPicFlag: header.fieldPicFlag, bottomFieldFlag: header.bottomFieldFlag,
                nalRefIdcIsZero: header.nalRefIdc == 0, picOrderCntType: picOrderCntType,
                picOrderCntLsb: header.picOrderCntLsb, deltaPicOrderCntBottom: header.deltaPicOrderCntBottom,
                deltaPicOrderCnt0: header.deltaPicOrderCnt0, deltaPicOrderCnt1: header.deltaPicOrderCnt1,
                idrPicFlag: header.idrPicFlag, idrPicId: header.idrPicId)
        }

        /// Reads just first_mb_in_slice; an unreadable one counts as 0 (a new picture), the safe side for a
        /// decoder that resynchronises on pictures.
        init(fallbackFor nalUnit: ArraySlice<UInt8>) {
            var reader = BitReader(RBSP.removingEmulationPrevention(nalUnit.dropFirst(), limit: 8))
            firstMbInSlice = (try? reader.readUE()).map(Int.init) ?? 0
            fields = nil
            redundantPicCnt = 0
        }

        /// §7.4.1.2.4, frame_num through idr_pic_id, plus first_mb_in_slice == 0 (a picture's slices cannot all
        /// start at macroblock 0 unless arbitrary slice order repeats it, which only Baseline allows, and real
        /// encoders do not do).
        func startsNewPicture(after previous: SliceIdentity) -> Bool {
            if firstMbInSlice == 0 { return true }
            guard let now = fields, let before = previous.fields else { return false }
            if now.frameNum != before.frameNum { return true }
            if now.picParameterSetId != before.picParameterSetId { return true }
            if now.fieldPicFlag != before.fieldPicFlag { return true }
            if let a = now.bottomFieldFlag, let b = before.bottomFieldFlag, a != b { return true }
            if now.nalRefIdcIsZero != before.nalRefIdcIsZero { return true }
            if now.picOrderCntType == 0, before.picOrderCntType == 0,
                now.picOrderCntLsb != before.picOrderCntLsb
                    || (now.deltaPicOrderCntBottom ?? 0) != (before.deltaPicOrderCntBottom ?? 0)
            {
                return true
            }
            if now.picOrderCntType == 1, before.picOrderCntType == 1,
                (now.deltaPicOrderCnt0 ?? 0) != (before.deltaPicOrderCnt0 ?? 0)
                    || (now.deltaPicOrderCnt1 ?? 0) != (before.deltaPicOrderCnt1 ?? 0)
            {
                return true
            }
            if now.idrPicFlag != before.idrPicFlag { return true }
            if now.idrPicFlag, before.idrPicFlag, now.idrPicId != before.idrPicId { return true }
            return false
        }
    }

    /// Groups a whole array of NAL units into access units (see `AccessUnitSplitter`).
    public static func accessUnits(of nalUnits: some Sequence<ArraySlice<UInt8>>) -> [AccessUnit] {
        var splitter = AccessUnitSplitter()
        var units: [AccessUnit] = []
        for nal in nalUnits {
            if let unit = splitter.append(nal) { units.append(unit) }
        }
        if let last = splitter.flush() { units.append(last) }
        return units
    }
}
