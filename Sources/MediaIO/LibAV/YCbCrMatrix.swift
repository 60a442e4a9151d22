/// The Y′CbCr matrix (and, here, always limited range) a converted frame is written in. Composition canvases use
/// BT.709 from 720 lines up and BT.601 below (ITU-R BT.709-6 §3, BT.601-7 §2.5), the split every encoder and player
/// assumes when a stream does not signal its matrix.
public enum YCbCrMatrix: String, Sendable, Hashable, CaseIterable {
    case bt601
    case bt709

    /// BT.709 for heights of 720 lines and more, BT.601 below.
    public static func forCanvas(height: Int) -> YCbCrMatrix {
        height >= 720 ? .bt709 : .bt601
    }

    /// Kr and Kb of the matrix (BT.601-7 Table 3 item 3.2; BT.709-6 Table 3 item 3.2).
    public var coefficients: (kr: Double, kb: Double) {
        switch self {
        case .bt601: (0.299, 0.114)
        case .bt709: (0.2126, 0.0722)
        }
    }
}
