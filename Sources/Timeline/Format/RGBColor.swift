/// A colour as written in a timeline (`#RRGGBB`, sRGB-encoded R′G′B′), turned into the canvas's Y′CbCr once by the
/// engine (`ycbcr(_:)`, in Composition: the matrices are MediaIO's).
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
}
