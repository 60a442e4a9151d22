extension HEVC {
    /// st_ref_pic_set( stRpsIdx ) (H.265 §7.3.7) with the derived DeltaPocS0/S1 and UsedByCurrPicS0/S1 of §7.4.8,
    /// which a later set predicted from this one, and a slice header's NumPicTotalCurr, need.
    public struct ShortTermRefPicSet: Hashable, Sendable {
        /// num_negative_pics and num_positive_pics are bounded by sps_max_dec_pic_buffering_minus1 ≤ 15 (MaxDpbSize
        /// − 1, §A.4.2); FFmpeg refuses a set of more than 16 pictures (HEVC_MAX_REFS) and so does this parser.
        public static let maxPictures = 16

        public var interRefPicSetPredictionFlag = false
        /// The coded fields of a predicted set (nil otherwise); delta_idx_minus1 is coded only in slice headers.
        public var deltaIdxMinus1: Int?
        public var deltaRpsSign: Bool?
        public var absDeltaRpsMinus1: Int?

        /// DeltaPocS0[i] (negative, closest first) and DeltaPocS1[i] (positive, closest first).
        public var deltaPocS0: [Int] = []
        public var deltaPocS1: [Int] = []
        public var usedByCurrPicS0: [Bool] = []
        public var usedByCurrPicS1: [Bool] = []

        public var numNegativePics: Int { deltaPocS0.count }
        public var numPositivePics: Int { deltaPocS1.count }
        /// NumDeltaPocs (equation 7-71).
        public var numDeltaPocs: Int { numNegativePics + numPositivePics }
        /// The pictures of this set the current picture uses (its share of NumPicTotalCurr, equation 7-55).
        public var numUsedByCurrPic: Int {
            usedByCurrPicS0.filter { $0 }.count + usedByCurrPicS1.filter { $0 }.count
        }

        public init(
            deltaPocS0: [Int] = [], usedByCurrPicS0: [Bool] = [], deltaPocS1: [Int] = [], usedByCurrPicS1: [Bool] = []
        ) {
            self.deltaPocS0 = deltaPocS0
            self.usedByCurrPicS0 = usedByCurrPicS0
            self.deltaPocS1 = deltaPocS1
            self.usedByCurrPicS1 = usedByCurrPicS1
        }

        /// Reads st_ref_pic_set( stRpsIdx ): `previous` are the sets 0..<stRpsIdx already read (the SPS's, when
        /// the set is a slice header's, whose stRpsIdx is num_short_term_ref_pic_sets).
        public init(
            reading reader: inout BitReader, stRpsIdx: Int, numShortTermRefPicSets: Int, previous: [ShortTermRefPicSet]
        ) throws(BitstreamError) {
            if stRpsIdx != 0 {
                interRefPicSetPredictionFlag = try reader.readFlag()
            }
            if interRefPicSetPredictionFlag {
                var deltaIdx = 1
                if stRpsIdx == numShortTermRefPicSets {
                    let minus1 = try reader.readUE("delta_idx_minus1", max: stRpsIdx - 1)
                    deltaIdxMinus1 = minus1
                    deltaIdx = minus1 + 1
                }
                let sign = try reader.readFlag()
                deltaRpsSign = sign
                let absMinus1 = try reader.readUE("abs_delta_rps_minus1", max: (1 << 15) - 1)
                absDeltaRpsMinus1 = absMinus1
                let deltaRps = (sign ? -1 : 1) * (absMinus1 + 1)
                let refIdx = stRpsIdx - deltaIdx
                guard previous.indices.contains(refIdx) else {
                    throw .make(.invalidValue, "st_ref_pic_set \(stRpsIdx) predicts from set \(refIdx), which is not there",
                                        offset: reader.bitOffset / 8)
                }
                let ref = previous[refIdx]
                var usedByCurrPicFlag: [Bool] = []
                var useDeltaFlag: [Bool] = []
                for _ in 0...ref.numDeltaPocs {
                    let used = try reader.readFlag()
                    usedByCurrPicFlag.append(used)
                    useDeltaFlag.append(used ? true : try reader.readFlag())
                }
                try derive(from: ref, deltaRps: deltaRps, used: usedByCurrPicFlag, useDelta: useDeltaFlag,
                           offset: reader.bitOffset / 8)
            } else {
                let negatives = try reader.readUE("num_negative_pics", max: Self.maxPictures)
                let positives = try reader.readUE("num_positive_pics", max: Self.maxPictures - negatives)
                var poc = 0
                for _ in 0..<negatives {
                    poc -= try reader.readUE("delta_poc_s0_minus1", max: (1 << 15) - 1) + 1
                    deltaPocS0.append(poc)
                    usedByCurrPicS0.append(try reader.readFlag())
                }
                poc = 0
                for _ in 0..<positives {
                    poc += try reader.readUE("delta_poc_s1_minus1", max: (1 << 15) - 1) + 1
                    deltaPocS1.append(poc)
                    usedByCurrPicS1.append(try reader.readFlag())
                }
            }
        }

        /// Equations 7-61 and 7-62: the set predicted from `ref` shifted by deltaRps.
        private mutating func derive(
            from ref: ShortTermRefPicSet, deltaRps: Int, used: [Bool], useDelta: [Bool], offset: Int
        ) throws(BitstreamError) {
            let negatives = ref.numNegativePics
            let all = ref.numDeltaPocs
            for j in stride(from: ref.numPositivePics - 1, through: 0, by: -1) {
                let dPoc = ref.deltaPocS1[j] + deltaRps
                if dPoc < 0, useDelta[negatives + j] { deltaPocS0.append(dPoc); usedByCurrPicS0.append(used[negatives + j]) }
            }
            if deltaRps < 0, useDelta[all] { deltaPocS0.append(deltaRps); usedByCurrPicS0.append(used[all]) }
            for j in 0..<negatives {
                let dPoc = ref.deltaPocS0[j] + deltaRps
                if dPoc < 0, useDelta[j] { deltaPocS0.append(dPoc); usedByCurrPicS0.append(used[j]) }
            }
            for j in stride(from: negatives - 1, through: 0, by: -1) {
                let dPoc = ref.deltaPocS0[j] + deltaRps
                if dPoc > 0, useDelta[j] { deltaPocS1.append(dPoc); usedByCurrPicS1.append(used[j]) }
            }
            if deltaRps > 0, useDelta[all] { deltaPocS1.append(deltaRps); usedByCurrPicS1.append(used[all]) }
            for j in 0..<ref.numPositivePics {
                let dPoc = ref.deltaPocS1[j] + deltaRps
                if dPoc > 0, useDelta[negatives + j] { deltaPocS1.append(dPoc); usedByCurrPicS1.append(used[negatives + j]) }
            }
            guard numDeltaPocs <= Self.maxPictures else {
                throw .make(.invalidValue, "predicted st_ref_pic_set has \(numDeltaPocs) pictures, more than \(Self.maxPictures)",
                                    offset: offset)
            }
        }
    }
}
