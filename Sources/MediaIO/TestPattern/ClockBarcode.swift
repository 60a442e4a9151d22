import MediaCore

/// The wall clock drawn as a row of 24 blocks along the top of the picture, for glass-to-glass latency: a receiver
/// (a browser's canvas, a Python script, `rtenc receive --decode`) reads the time a frame was made from the decoded
/// picture itself, without OCR, and subtracts it from its own clock.
///
///     x = 0                                                          24 × block
///     +------+------+------+------+-- … --+------+------+
///     | b23  | b22  | b21  | b20  |       |  b1  |  b0  |   block × block pixels each, rows 0 ..< block
///     +------+------+------+------+-- … --+------+------+
///
/// The value is milliseconds since the Unix epoch modulo 2^24 (it wraps every 4 h 39 min 37 s; `unwrap` places it
/// next to the reader's clock), most significant bit on the left; a 1 is luma 235 (white in limited range), a 0 is
/// luma 60, chroma neutral. Blocks are 20 pixels square when the picture is at least 480 wide, else as wide as 24
/// fit (even, at least 2). A reader averages the middle half of each block, so coding noise and chroma bleed at the
/// edges do not matter, and refuses a frame where any block is neither clearly light nor clearly dark.
public enum ClockBarcode {
    public static let bitCount = 24
    public static let valueMask: UInt32 = (1 << 24) - 1
    public static let oneLuma: UInt8 = 235
    public static let zeroLuma: UInt8 = 60
    /// Block means closer than this to the midpoint of the two levels make the frame unreadable.
    static let margin = 40

    /// The block side for a picture `width` pixels wide.
    public static func blockSize(forWidth width: Int) -> Int {
        width >= 24 * 20 ? 20 : max(2, (width / bitCount) & ~1)
    }

    /// The 24-bit code of a wall-clock time in milliseconds since the Unix epoch.
    public static func code(millisecondsSinceEpoch: Int64) -> UInt32 {
        UInt32(truncatingIfNeeded: millisecondsSinceEpoch) & valueMask
    }

    /// The time nearest to `reference` (both in milliseconds since the Unix epoch) whose code is `code`: the code is
    /// the time modulo 2^24, so a reader whose clock is within ±2 h 19 min of the sender's gets the full time back.
    public static func unwrap(_ code: UInt32, near reference: Int64) -> Int64 {
        let modulus = Int64(1) << 24
        let base = reference - (reference & (modulus - 1))
        var candidate = base + Int64(code & valueMask)
        if candidate - reference > modulus / 2 { candidate -= modulus }
        if reference - candidate > modulus / 2 { candidate += modulus }
        return candidate
    }

    /// Reads the code from a luma plane (`bytesPerRow` apart rows, at least `width` × `height`); nil when the picture
    /// is too small to hold the barcode or a block is ambiguous (not a barcoded frame, or damaged).
    public static func read(luma: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int) -> UInt32? {
        let block = blockSize(forWidth: width)
        guard block * bitCount <= width, block <= height, bytesPerRow >= width,
              luma.count >= bytesPerRow * (block - 1) + block * bitCount else { return nil }
        let midpoint = (Int(oneLuma) + Int(zeroLuma)) / 2
        // The middle half of each block, at least one pixel.
        let inset = block / 4, side = max(1, block - 2 * inset)
        var code: UInt32 = 0
        for bit in 0..<bitCount {
            var sum = 0
            for row in inset..<(inset + side) {
                let start = row * bytesPerRow + bit * block + inset
                for column in start..<(start + side) { sum += Int(luma[column]) }
            }
            let mean = sum / (side * side)
            guard abs(mean - midpoint) >= margin else { return nil }
            code = code << 1 | (mean > midpoint ? 1 : 0)
        }
        return code
    }

    /// Reads the code from a picture's luma plane.
    public static func read(from buffer: PixelBuffer) -> UInt32? {
        guard let plane = buffer.planes.first else { return nil }
        return plane.bytes.withUnsafeBytes {
            read(luma: $0, width: buffer.width, height: buffer.height, bytesPerRow: plane.bytesPerRow)
        }
    }
}

extension PixelBuffer {
    /// Draws `code` as the clock barcode along the top rows (chroma neutral under it).
    mutating func drawClockBarcode(_ code: UInt32) {
        let block = ClockBarcode.blockSize(forWidth: width)
        for bit in 0..<ClockBarcode.bitCount {
            let isOne = code >> UInt32(ClockBarcode.bitCount - 1 - bit) & 1 == 1
            fillGray(x: bit * block, y: 0, width: block, height: block,
                     luma: isOne ? ClockBarcode.oneLuma : ClockBarcode.zeroLuma)
        }
    }
}
