extension HEVC {
    /// One sub-layer's entry of the *_sub_layer_ordering_info loop of a VPS or SPS (§7.3.2.1, §7.3.2.2.1).
    public struct SubLayerOrderingInfo: Hashable, Sendable {
        /// *_max_dec_pic_buffering_minus1: MaxDpbSize − 1 ≤ 15 (§A.4.2).
        public var maxDecPicBufferingMinus1: Int
        /// *_max_num_reorder_pics (≤ max_dec_pic_buffering_minus1).
        public var maxNumReorderPics: Int
        /// *_max_latency_increase_plus1 (0: no limit).
        public var maxLatencyIncreasePlus1: UInt32

        public init(maxDecPicBufferingMinus1: Int, maxNumReorderPics: Int, maxLatencyIncreasePlus1: UInt32) {
            self.maxDecPicBufferingMinus1 = maxDecPicBufferingMinus1
            self.maxNumReorderPics = maxNumReorderPics
            self.maxLatencyIncreasePlus1 = maxLatencyIncreasePlus1
        }

        /// Reads the loop. When `presentFlag` is 0 only the highest sub-layer's values are coded and the lower
        /// sub-layers take them (§7.4.3.2.1), so the result always has maxSubLayersMinus1 + 1 entries.
        ///
        /// max_num_reorder_pics above max_dec_pic_buffering_minus1 is kept with a warning, as FFmpeg keeps it
        /// (it raises the buffering); the buffering itself is bounded, since a DPB size follows from it.
        static func readLoop(
            _ prefix: String, from reader: inout BitReader, presentFlag: Bool, maxSubLayersMinus1: Int,
            warnings: inout [BitstreamWarning]
        ) throws(BitstreamError) -> [SubLayerOrderingInfo] {
            var entries: [SubLayerOrderingInfo] = []
            for _ in (presentFlag ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
                let buffering = try reader.readUE("\(prefix)_max_dec_pic_buffering_minus1", max: 15)
                let offset = reader.bitOffset / 8
                let reorder = try reader.readUE("\(prefix)_max_num_reorder_pics", max: 15, orWarnInto: &warnings)
                if reorder > buffering {
                    warnings.append(BitstreamWarning(
                        code: .outOfRange, syntaxElement: "\(prefix)_max_num_reorder_pics",
                        reason: "\(reorder) exceeds \(prefix)_max_dec_pic_buffering_minus1 \(buffering), kept",
                        offset: offset))
                }
                let latency = try reader.readUE()
                entries.append(SubLayerOrderingInfo(
                    maxDecPicBufferingMinus1: buffering, maxNumReorderPics: reorder, maxLatencyIncreasePlus1: latency))
            }
            if let highest = entries.last, entries.count < maxSubLayersMinus1 + 1 {
                entries = Array(repeating: highest, count: maxSubLayersMinus1 + 1)
            }
            return entries
        }
    }
}
