extension H264 {
    /// One scaling_list() as transmitted (§7.3.2.1.1.1, semantics §7.4.2.1.1.1).
    public enum ScalingList: Hashable, Sendable {
        /// *_scaling_list_present_flag[i] = 0: the fall-back rule (Table 7-2) applies.
        case notPresent
        /// useDefaultScalingMatrixFlag = 1 (the first delta_scale made nextScale 0): Default_4x4 / Default_8x8.
        case useDefault
        /// The list of 16 or 64 weights in zig-zag (frame) or field scan order.
        case explicit([UInt8])

        /// Reads one list of `size` (16 or 64) entries after its present flag was 1.
        static func read(size: Int, from reader: inout BitReader) throws(BitstreamError) -> ScalingList {
            var list = [UInt8]()
            list.reserveCapacity(size)
            var lastScale = 8
            var nextScale = 8
            for j in 0..<size {
                if nextScale != 0 {
                    let deltaScale = try reader.readSE("delta_scale", in: -128...127)
                    nextScale = (lastScale + deltaScale + 256) % 256
                    if j == 0, nextScale == 0 {
                        // Nothing more is sent for this list (the loop never reads again since nextScale == 0).
                        return .useDefault
                    }
                }
                let scale = nextScale == 0 ? lastScale : nextScale
                list.append(UInt8(scale))
                lastScale = scale
            }
            return .explicit(list)
        }

        /// Reads `count` lists: the first six are 4×4 (16 entries), the rest 8×8 (64 entries).
        static func readMatrix(count: Int, from reader: inout BitReader) throws(BitstreamError) -> [ScalingList] {
            var lists: [ScalingList] = []
            for i in 0..<count {
                if try reader.readFlag() {
                    lists.append(try read(size: i < 6 ? 16 : 64, from: &reader))
                } else {
                    lists.append(.notPresent)
                }
            }
            return lists
        }
    }
}

extension H264.ScalingList: Encodable {
    /// `null` when not present, `"default"` for useDefaultScalingMatrixFlag, else the array of weights.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .notPresent: try container.encodeNil()
        case .useDefault: try container.encode("default")
        case .explicit(let list): try container.encode(list)
        }
    }
}
