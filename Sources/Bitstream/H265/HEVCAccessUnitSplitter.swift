extension HEVC {
    /// Groups a stream of H.265 NAL units into access units, one NAL unit at a time, so it works on an endless
    /// stream.
    ///
    /// §7.4.2.4.4: after the last VCL NAL unit of a picture, the first of these starts the next access unit: an
    /// access unit delimiter, VPS, SPS, PPS, prefix SEI, nal_unit_type 41…44 or 48…55, or the first slice segment
    /// of a picture (first_slice_segment_in_pic_flag 1). Everything else — the slices of the picture, suffix SEI,
    /// end of sequence and bitstream, filler, reserved types — stays with the picture in progress. NAL units of
    /// layers above 0 follow the base layer's picture. first_slice_segment_in_pic_flag is the first payload bit,
    /// so no parameter set is needed to find a boundary; the slice header is parsed (when its PPS and SPS are
    /// known) only for the picture's type and QP.
    ///
    /// A second type rather than a codec switch in `H264.AccessUnitSplitter`: H.264 needs the slice header's
    /// §7.4.1.2.4 comparisons to find a picture, H.265 one flag, so the two share only the bounded buffer.
    public struct AccessUnitSplitter: Sendable {
        /// Bound on NAL units held for one access unit (see `H264.AccessUnitSplitter.maxNALUnitsPerAccessUnit`).
        public static let maxNALUnitsPerAccessUnit = H264.AccessUnitSplitter.maxNALUnitsPerAccessUnit

        public private(set) var parameterSets = ParameterSets()
        /// The last error from parsing a parameter set (the NAL unit is still passed on in its access unit).
        public private(set) var lastParameterSetError: BitstreamError?

        private var pending: [ArraySlice<UInt8>] = []
        private var pendingHasVCL = false
        private var pendingFirstHeader: SliceSegmentHeader?
        private var pendingHeaderError: BitstreamError?
        private var pendingSliceType: SliceType?

        public init() {}

        /// Adds the next NAL unit (header first, no start code). Returns the access unit this NAL unit completed,
        /// if it is the first NAL unit of the next one. A NAL unit shorter than the 2-byte header (damage: no
        /// encoder writes one) cannot start anything and stays with the access unit in progress, so nothing is lost.
        public mutating func append(_ nalUnit: ArraySlice<UInt8>) -> AccessUnit? {
            var completed: AccessUnit?
            if let header = NALUnitHeader(nalUnit), header.nuhLayerId == 0 {
                let type = header.nalUnitType
                if type.isVCL {
                    let first = nalUnit.dropFirst(2).first.map { $0 & 0x80 != 0 } ?? true
                    if first, pendingHasVCL {
                        completed = cut()
                    }
                    noteSlice(nalUnit, type: type)
                } else if Self.startsAccessUnit(type) {
                    if pendingHasVCL {
                        completed = cut()
                    }
                    if type.isParameterSet {
                        do {
                            try parameterSets.update(nalUnit: nalUnit)
                        } catch {
                            lastParameterSetError = error
                        }
                    }
                }
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

        /// The non-VCL types that begin an access unit when they follow a picture (§7.4.2.4.4).
        static func startsAccessUnit(_ type: NALUnitType) -> Bool {
            switch type.rawValue {
            case 32...35, 39, 41...44, 48...55: true
            default: false
            }
        }

        private mutating func noteSlice(_ nalUnit: ArraySlice<UInt8>, type: NALUnitType) {
            // Reserved VCL types (10…15, 22…31) carry no slice header this module reads.
            let readable = type.rawValue <= 9 || (16...21).contains(type.rawValue)
            var header: SliceSegmentHeader?
            var failure: BitstreamError?
            if readable {
                do {
                    header = try SliceSegmentHeader(nalUnit: nalUnit, parameterSets: parameterSets)
                } catch {
                    failure = error
                }
            }
            if !pendingHasVCL {
                pendingHasVCL = true
                pendingFirstHeader = header
                pendingHeaderError = failure
            }
            if let sliceType = header?.sliceType {
                pendingSliceType = Self.merge(pendingSliceType, sliceType)
            }
        }

        private static func merge(_ current: SliceType?, _ next: SliceType) -> SliceType {
            guard let current else { return next }
            if current == .b || next == .b { return .b }
            if current == .p || next == .p { return .p }
            return .i
        }

        private mutating func cut() -> AccessUnit {
            let unit = AccessUnit(
                nalUnits: pending, firstSliceSegmentHeader: pendingFirstHeader, sliceHeaderError: pendingHeaderError,
                pictureSliceType: pendingSliceType)
            pending = []
            pendingHasVCL = false
            pendingFirstHeader = nil
            pendingHeaderError = nil
            pendingSliceType = nil
            return unit
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
