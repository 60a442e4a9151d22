/// A 5×7 pixel font for the characters the test pattern prints: digits, ':' and '.'.
///
/// Each glyph is seven rows, top first; in each row bit 4 is the leftmost pixel and bit 0 the rightmost. Drawn
/// scaled up (every font pixel becomes a `scale`×`scale` square), it stays legible after heavy compression, which is
/// the point: a viewer must read the frame number and the time off a 500 kb/s stream.
enum BitmapFont {
    static let glyphWidth = 5
    static let glyphHeight = 7
    /// Blank font columns between two characters.
    static let spacing = 1

    /// The characters with a glyph, in the order of `glyphs`.
    private static let characters = Array("0123456789:.".utf8)

    /// Seven rows per character of `characters`, one flat table so drawing allocates nothing.
    private static let glyphs: [UInt8] = [
        0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110, // 0
        0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110, // 1
        0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111, // 2
        0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110, // 3
        0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010, // 4
        0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110, // 5
        0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110, // 6
        0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000, // 7
        0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110, // 8
        0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100, // 9
        0b00000, 0b01100, 0b01100, 0b00000, 0b01100, 0b01100, 0b00000, // :
        0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b01100, // .
    ]

    /// The rows of `character`, or nil when the font has no glyph for it (drawn as a blank).
    static func rows(of character: UInt8) -> ArraySlice<UInt8>? {
        guard let index = characters.firstIndex(of: character) else { return nil }
        return glyphs[(index * glyphHeight)..<((index + 1) * glyphHeight)]
    }

    /// Width in pixels of `count` characters at `scale`, without trailing spacing.
    static func textWidth(count: Int, scale: Int) -> Int {
        count == 0 ? 0 : (count * (glyphWidth + spacing) - spacing) * scale
    }
}
