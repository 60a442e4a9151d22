import MediaIO

/// A colour as written in a timeline (`#RRGGBB`, sRGB-encoded R′G′B′), turned into the canvas's Y′CbCr once.
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let black = RGBColor(red: 0, green: 0, blue: 0)

    /// `#RRGGBB` (either case); nil for anything else.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 7, digits[0] == UInt8(ascii: "#") else { return nil }
        var values: [UInt8] = []
        for pair in stride(from: 1, to: 7, by: 2) {
            guard let value = UInt8(String(decoding: digits[pair..<pair + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            values.append(value)
        }
        self.init(red: values[0], green: values[1], blue: values[2])
    }

    public var description: String {
        "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The 8-bit limited-range Y′CbCr of this colour in `matrix` (BT.601-7 / BT.709-6 §3.5: Y′ 16…235,
    /// Cb/Cr 16…240), rounded to nearest.
    public func ycbcr(_ matrix: YCbCrMatrix) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let (kr, kb) = matrix.coefficients
        let r = Double(red) / 255, g = Double(green) / 255, b = Double(blue) / 255
        let luma = kr * r + (1 - kr - kb) * g + kb * b
        let cb = (b - luma) / (2 * (1 - kb))
        let cr = (r - luma) / (2 * (1 - kr))
        func quantize(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        return (quantize(16 + 219 * luma), quantize(128 + 224 * cb), quantize(128 + 224 * cr))
    }
}
