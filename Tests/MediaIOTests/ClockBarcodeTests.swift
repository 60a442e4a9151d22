import MediaCore
import MediaIO
import Testing

@Suite struct ClockBarcodeTests {
    /// Drawn by the test pattern, read back from the raw picture: every width from the smallest that holds 24 blocks
    /// up, both pixel formats, codes with every bit pattern class.
    @Test(arguments: [(48, 32), (320, 240), (480, 270), (640, 360), (1280, 720)], [PixelFormat.nv12, .i420])
    func drawnCodesReadBack(size: (Int, Int), format: PixelFormat) throws {
        for ms: Int64 in [0, 1, 0xFFFFFF, 0xAAAAAA, 0x555555, 1_764_000_000_123, 86_399_999] {
            var source = try TestPatternSource(width: size.0, height: size.1, format: format, barcode: true, clock: { ms })
            var buffer = PixelBuffer(format: format, width: 2, height: 2)
            _ = try source.nextFrame(into: &buffer)
            #expect(ClockBarcode.read(from: buffer) == ClockBarcode.code(millisecondsSinceEpoch: ms), "\(size) \(format) \(ms)")
        }
    }

    @Test func noiseWithBarcodeReadsBack() throws {
        var source = try TestPatternSource(width: 640, height: 360, content: .noise, barcode: true, clock: { 123_456_789 })
        var buffer = PixelBuffer(format: .nv12, width: 2, height: 2)
        _ = try source.nextFrame(into: &buffer)
        #expect(ClockBarcode.read(from: buffer) == ClockBarcode.code(millisecondsSinceEpoch: 123_456_789))
    }

    /// A picture without the barcode (the plain pattern's top-left is the black text box; noise is neither level)
    /// reads as nil, not as some number.
    @Test(arguments: [TestPatternSource.Content.bars, .noise])
    func framesWithoutTheBarcodeReadAsNil(content: TestPatternSource.Content) throws {
        var source = try TestPatternSource(width: 640, height: 360, content: content, clock: { 5 })
        var buffer = PixelBuffer(format: .nv12, width: 2, height: 2)
        _ = try source.nextFrame(into: &buffer)
        #expect(ClockBarcode.read(from: buffer) == nil)
    }

    @Test func tooSmallOrDamagedIsNil() throws {
        let tiny = PixelBuffer(format: .i420, width: 16, height: 16)
        #expect(ClockBarcode.read(from: tiny) == nil, "narrower than 24 blocks of 2")
        var source = try TestPatternSource(width: 640, height: 360, barcode: true, clock: { 0xF0F0F0 })
        var buffer = PixelBuffer(format: .i420, width: 2, height: 2)
        _ = try source.nextFrame(into: &buffer)
        #expect(ClockBarcode.read(from: buffer) == 0xF0F0F0)
        // Block 5 (a 1) painted mid-grey: ambiguous, so the frame is refused rather than misread.
        let stride = buffer.planes[0].bytesPerRow
        for row in 0..<20 { for column in 100..<120 { buffer.planes[0].bytes[row * stride + column] = 147 } }
        #expect(ClockBarcode.read(from: buffer) == nil)
    }

    /// Coding noise: every luma sample moved by up to ±30 still reads (the reader averages the middle of a block).
    @Test func toleratesCodingNoise() throws {
        var source = try TestPatternSource(width: 1280, height: 720, barcode: true, clock: { 0x5A5A5A })
        var buffer = PixelBuffer(format: .nv12, width: 2, height: 2)
        _ = try source.nextFrame(into: &buffer)
        var state: UInt32 = 12345
        for index in 0..<(buffer.planes[0].bytesPerRow * 20) {
            state = state &* 1_103_515_245 &+ 12345
            let delta = Int(state >> 16 % 61) - 30
            buffer.planes[0].bytes[index] = UInt8(clamping: Int(buffer.planes[0].bytes[index]) + delta)
        }
        #expect(ClockBarcode.read(from: buffer) == 0x5A5A5A)
    }

    static let unwrapCases: [(code: UInt32, reference: Int64, expected: Int64)] = [
        (0x000010, 0x1_000_000 + 0x20, 0x1_000_010),         // just before the reference, same period
        (0xFFFFF0, 0x3_000_000 + 0x10, 0x2_FFF_FF0),          // the reference wrapped; the code is from before
        (0x000010, 0x2_FFF_FF0, 0x3_000_010),                 // the code wrapped, the reference not yet
        (0x123456, 0x7_123_456, 0x7_123_456),                 // exact
        (0x000000, 0, 0),
    ]

    @Test(arguments: unwrapCases)
    func unwrap(_ c: (code: UInt32, reference: Int64, expected: Int64)) {
        #expect(ClockBarcode.unwrap(c.code, near: c.reference) == c.expected)
    }

    static let nameCases: [(input: String, expected: TestPatternName?)] = [
        ("", TestPatternName(content: .bars, barcode: false)),
        ("testsrc", TestPatternName(content: .bars, barcode: false)),
        ("testsrc:noise", TestPatternName(content: .noise, barcode: false)),
        ("testsrc:barcode", TestPatternName(content: .bars, barcode: true)),
        ("testsrc:noise:barcode", TestPatternName(content: .noise, barcode: true)),
        ("testsrc:barcode:noise", TestPatternName(content: .noise, barcode: true)),
        ("clip.mp4", nil),
        ("-", nil),
        ("testsrc.y4m", nil),
    ]

    @Test(arguments: nameCases)
    func names(_ c: (input: String, expected: TestPatternName?)) throws {
        #expect(try TestPatternName(parsing: c.input) == c.expected, "\(c.input)")
    }

    @Test(arguments: ["testsrc:bars2", "testsrc:noise:noise", "testsrc:", "testsrc::barcode"])
    func badNamesSayWhatIsValid(_ input: String) {
        #expect {
            _ = try TestPatternName(parsing: input)
        } throws: { error in
            let text = "\(error)"
            return text.contains(input) && (text.contains(":noise, :barcode") || text.contains("twice"))
        }
    }
}
