extension H264 {
    /// slice_type (Table 7-6). Values 5…9 say every slice of the picture has the same type (value − 5).
    public enum SliceType: Int, Hashable, Sendable, CaseIterable {
        case p = 0
        case b = 1
        case i = 2
        case sp = 3
        case si = 4

        /// Maps slice_type 0…9 to its type (the %5 of Table 7-6); nil above 9.
        public init?(sliceType: Int) {
            guard (0...9).contains(sliceType) else { return nil }
            self.init(rawValue: sliceType % 5)
        }

        public var isIntra: Bool { self == .i || self == .si }
        /// P and SP predict from list 0 only.
        public var isPredictive: Bool { self == .p || self == .sp }

        public var name: String {
            switch self {
            case .p: "P"
            case .b: "B"
            case .i: "I"
            case .sp: "SP"
            case .si: "SI"
            }
        }
    }
}
