extension HEVC {
    /// scaling_list_data() (H.265 §7.3.4), read to get past it: the lists are kept as coded (prediction or
    /// explicit deltas), since nothing this module derives uses them.
    public struct ScalingListData: Hashable, Sendable {
        /// One coded list: predicted from another (scaling_list_pred_matrix_id_delta) or explicit.
        public enum Entry: Hashable, Sendable {
            case predicted(scalingListPredMatrixIdDelta: Int)
            /// scaling_list_dc_coef_minus8 (sizeId 2 and 3 only) and the scaling_list_delta_coef values.
            case explicit(scalingListDcCoefMinus8: Int?, scalingListDeltaCoef: [Int])
        }

        /// Per sizeId 0…3, the entries for matrixId 0…5 (0 and 3 only for sizeId 3).
        public var lists: [[Entry]]

        public init(reading reader: inout BitReader) throws(BitstreamError) {
            lists = []
            for sizeId in 0..<4 {
                var entries: [Entry] = []
                for matrixId in stride(from: 0, to: 6, by: sizeId == 3 ? 3 : 1) {
                    if !(try reader.readFlag()) {  // scaling_list_pred_mode_flag
                        let maxDelta = sizeId == 3 ? matrixId / 3 : matrixId
                        entries.append(.predicted(scalingListPredMatrixIdDelta: try reader.readUE(
                            "scaling_list_pred_matrix_id_delta", max: maxDelta)))
                    } else {
                        let coefNum = Swift.min(64, 1 << (4 + (sizeId << 1)))
                        var dc: Int?
                        if sizeId > 1 {
                            dc = try reader.readSE("scaling_list_dc_coef_minus8", in: -7...247)
                        }
                        var deltas: [Int] = []
                        deltas.reserveCapacity(coefNum)
                        for _ in 0..<coefNum {
                            deltas.append(try reader.readSE("scaling_list_delta_coef", in: -128...127))
                        }
                        entries.append(.explicit(scalingListDcCoefMinus8: dc, scalingListDeltaCoef: deltas))
                    }
                }
                lists.append(entries)
            }
        }
    }
}
