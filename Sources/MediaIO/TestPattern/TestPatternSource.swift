#if canImport(Glibc)
import Bitstream
import Glibc
#endif
import MediaCore

/// A built-in moving test picture, like FFmpeg's `testsrc`: colour bars over a grey ramp, a white box sweeping
/// across the ramp (motion a viewer and an encoder can see), and the frame number and wall-clock time drawn in big
/// digits so a viewer can read latency off the screen by comparing with a clock.
///
/// With `barcode`, the top rows carry the wall clock as `ClockBarcode` blocks (and the digits move below them), so
/// a receiver can read glass-to-glass latency off the decoded picture without OCR.
///
/// Cost per frame is one bulk copy of a background rendered at init, a few box fills and the digits, so 1280×720
/// at 30 fps takes a small fraction of a core. The `noise` content replaces the picture with fresh random bytes
/// every frame (xorshift64*), which x264 cannot compress: that is how the bitrate cap is tested.
public struct TestPatternSource: SeekableFrameSource {
    public enum Content: String, Sendable, CaseIterable {
        /// Colour bars, ramp, moving box.
        case bars
        /// Random luma and chroma, new every frame.
        case noise
    }

    /// Milliseconds since the Unix epoch (UTC); injected so tests draw a known time.
    public typealias WallClock = @Sendable () -> Int64

    public let format: PixelFormat
    public let width: Int
    public let height: Int
    public let frameRate: Rational
    public let content: Content
    /// Whether the clock barcode is drawn along the top.
    public let barcode: Bool

    private let clock: WallClock
    private var frameIndex: Int64 = 0
    private var random: XorShift64Star
    /// The static part of the `bars` picture, rendered once.
    private let background: PixelBuffer
    /// Digits are drawn at `scale` × the 5×7 font, so they stay about 1/11 of the picture height.
    private let scale: Int
    /// The overlay's text as ASCII, refilled every frame (capacity kept).
    private var frameText: [UInt8] = []
    private var timeText: [UInt8] = []

    /// - Parameters:
    ///   - frameRate: frames per second; timestamps are `index / frameRate`, exact.
    ///   - clock: the wall clock printed on each frame (default: the system's real-time clock).
    ///   - seed: the noise generator's seed, so noise is reproducible.
    ///   - barcode: draw the wall clock as a `ClockBarcode` along the top.
    public init(
        width: Int, height: Int, frameRate: Rational = Rational(30, 1), format: PixelFormat = .nv12,
        content: Content = .bars, barcode: Bool = false, seed: UInt64 = 0x9E37_79B9_7F4A_7C15,
        clock: @escaping WallClock = systemWallClock
    ) throws(MediaIOError) {
        try validateGeometry(width: width, height: height)
        guard frameRate.numerator > 0, frameRate.denominator > 0 else {
            throw .make(.invalidArgument, "frame rate \(frameRate) must be positive")
        }
        self.format = format
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.content = content
        self.barcode = barcode
        self.clock = clock
        self.random = XorShift64Star(seed: seed)
        self.scale = max(1, height / 80)
        self.background = content == .bars ? Self.renderBackground(format: format, width: width, height: height)
                                           : PixelBuffer(format: format, width: 2, height: 2)
    }

    public mutating func nextFrame(into buffer: inout PixelBuffer) throws(MediaIOError) -> MediaTime? {
        PixelBuffer.prepare(&buffer, format: format, width: width, height: height)
        switch content {
        case .bars:
            buffer.copyPixels(from: background)
            drawMovingBox(into: &buffer)
        case .noise:
            fillNoise(into: &buffer)
        }
        drawOverlay(into: &buffer)
        // pts = index × (den / num) seconds, exact in the timescale `num`.
        let pts = MediaTime(value: frameIndex * Int64(frameRate.denominator), timescale: Int64(frameRate.numerator))
        frameIndex += 1
        return pts
    }

    /// Jumps to the frame shown at `time`: frame ⌊time × frameRate⌋ (the pattern is a pure function of the frame
    /// index, so any frame is as cheap as the next one). The noise content is not replayed: its generator runs on.
    public mutating func seek(to time: MediaTime) throws(MediaIOError) {
        guard time.isValid, time.value >= 0 else {
            throw .make(.invalidArgument, "cannot seek the test pattern to \(time): a time must be ≥ 0 with a positive timescale")
        }
        // index = ⌊value × num / (timescale × den)⌋, in 128 bits: value, timescale and the rate each fit in 64.
        let index = Int128(time.value) * Int128(frameRate.numerator)
            / (Int128(time.timescale) * Int128(frameRate.denominator))
        // The frame's pts is index × den ticks, an Int64: refuse an index whose pts could not be written.
        guard index < Int128(Int64.max / Int64(frameRate.denominator)) else {
            throw .make(.limitExceeded, "cannot seek the test pattern to \(time): frame \(index) is beyond its last timestamp")
        }
        frameIndex = Int64(index)
    }

    // MARK: - Drawing

    /// The box crosses the picture in four seconds (whatever the frame rate), so motion looks the same at any rate.
    private func drawMovingBox(into buffer: inout PixelBuffer) {
        let side = max(2, (height / 6) & ~1)
        let rampTop = Self.barsHeight(height)
        let travel = width + side
        let framesPerCrossing = max(1, 4 * frameRate.numerator / frameRate.denominator)
        let position = Int(frameIndex % Int64(framesPerCrossing)) * travel / framesPerCrossing - side
        let top = rampTop + (height - rampTop - side) / 2
        // A dark frame keeps the white box visible over the bright end of the ramp.
        let border = max(2, (side / 12) & ~1)
        buffer.fillGray(x: position - border, y: top - border, width: side + 2 * border, height: side + 2 * border,
                        luma: 16)
        buffer.fillGray(x: position, y: top, width: side, height: side, luma: 235)
    }

    /// Frame number on the first line, `HH:MM:SS.mmm` (UTC) on the second, white on a black box, top left.
    /// With the barcode on, it takes the top rows (the same clock reading as the digits) and the text box sits
    /// right under it.
    private mutating func drawOverlay(into buffer: inout PixelBuffer) {
        let now = clock()
        frameText.removeAll(keepingCapacity: true)
        Self.appendDigits(of: frameIndex, minimumDigits: 6, to: &frameText)
        timeText.removeAll(keepingCapacity: true)
        Self.appendTimeOfDay(millisecondsSinceEpoch: now, to: &timeText)
        let margin = 2 * scale
        let lineHeight = (BitmapFont.glyphHeight + 2) * scale
        let textWidth = BitmapFont.textWidth(count: max(frameText.count, timeText.count), scale: scale)
        let top = barcode ? ClockBarcode.blockSize(forWidth: width) : 0
        buffer.fillGray(x: 0, y: top, width: textWidth + 2 * margin, height: 2 * lineHeight + 2 * margin - scale, luma: 16)
        buffer.drawText(frameText, x: margin, y: top + margin, scale: scale, luma: 235)
        buffer.drawText(timeText, x: margin, y: top + margin + lineHeight, scale: scale, luma: 235)
        if barcode {
            buffer.drawClockBarcode(ClockBarcode.code(millisecondsSinceEpoch: now))
        }
    }

    /// Every byte of every plane random, 8 bytes per generator step.
    private mutating func fillNoise(into buffer: inout PixelBuffer) {
        for index in 0..<buffer.planes.count {
            buffer.planes[index].bytes.withUnsafeMutableBytes { raw in
                let words = raw.count / 8
                for word in 0..<words {
                    raw.storeBytes(of: random.next(), toByteOffset: word * 8, as: UInt64.self)
                }
                var tail = random.next()
                for offset in (words * 8)..<raw.count {
                    raw[offset] = UInt8(truncatingIfNeeded: tail)
                    tail >>= 8
                }
            }
        }
    }

    /// Formats the time of day (UTC) of a Unix time in milliseconds as `HH:MM:SS.mmm`.
    static func formatTimeOfDay(millisecondsSinceEpoch: Int64) -> String {
        var text: [UInt8] = []
        appendTimeOfDay(millisecondsSinceEpoch: millisecondsSinceEpoch, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `HH:MM:SS.mmm` as ASCII; no String, so the per-frame overlay allocates nothing.
    static func appendTimeOfDay(millisecondsSinceEpoch: Int64, to text: inout [UInt8]) {
        let millisecondsPerDay: Int64 = 86_400_000
        // Times before 1970 wrap into the previous day instead of printing negative digits.
        let ms = ((millisecondsSinceEpoch % millisecondsPerDay) + millisecondsPerDay) % millisecondsPerDay
        appendDigits(of: ms / 3_600_000, minimumDigits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(of: ms / 60_000 % 60, minimumDigits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(of: ms / 1000 % 60, minimumDigits: 2, to: &text)
        text.append(UInt8(ascii: "."))
        appendDigits(of: ms % 1000, minimumDigits: 3, to: &text)
    }

    /// Appends the decimal digits of a non-negative `value`, zero-padded to `minimumDigits`.
    static func appendDigits(of value: Int64, minimumDigits: Int, to text: inout [UInt8]) {
        var digits = 1
        var power: Int64 = 10
        while digits < 19, value >= power { digits += 1; power &*= 10 }
        let count = max(digits, minimumDigits)
        let start = text.count
        text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var rest = value
        var index = start + count - 1
        while rest > 0, index >= start {
            text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        }
    }

    // MARK: - Background

    /// Bars take the top two thirds (rounded to even rows so chroma rows are not shared with the ramp).
    private static func barsHeight(_ height: Int) -> Int { (height * 2 / 3) & ~1 }

    /// ITU-R BT.601 75% colour bars in limited-range Y'CbCr: white, yellow, cyan, green, magenta, red, blue.
    static let bars: [(y: UInt8, cb: UInt8, cr: UInt8)] = [
        (180, 128, 128), (162, 44, 142), (131, 156, 44), (112, 72, 58), (84, 184, 198), (65, 100, 212), (35, 212, 114),
    ]

    /// Renders bars and a left-to-right grey ramp (16…235) once; per-pixel work here is paid a single time.
    private static func renderBackground(format: PixelFormat, width: Int, height: Int) -> PixelBuffer {
        var buffer = PixelBuffer(format: format, width: width, height: height)
        let barsHeight = barsHeight(height)
        let chromaWidth = (width + 1) / 2
        var lumaBars = [UInt8](repeating: 0, count: width)
        var lumaRamp = [UInt8](repeating: 0, count: width)
        for x in 0..<width {
            lumaBars[x] = bars[x * bars.count / width].y
            lumaRamp[x] = UInt8(16 + (219 * x) / max(1, width - 1))
        }
        var cbRow = [UInt8](repeating: 128, count: chromaWidth)
        var crRow = [UInt8](repeating: 128, count: chromaWidth)
        for cx in 0..<chromaWidth {
            let bar = bars[min(bars.count - 1, (cx * 2) * bars.count / width)]
            cbRow[cx] = bar.cb
            crRow[cx] = bar.cr
        }
        let lumaStride = buffer.planes[0].bytesPerRow
        for y in 0..<height {
            let row = y < barsHeight ? lumaBars : lumaRamp
            buffer.planes[0].bytes.replaceSubrange((y * lumaStride)..<(y * lumaStride + width), with: row)
        }
        let chromaBarsRows = barsHeight / 2
        switch format {
        case .nv12:
            var interleaved = [UInt8](repeating: 128, count: chromaWidth * 2)
            for cx in 0..<chromaWidth {
                interleaved[2 * cx] = cbRow[cx]
                interleaved[2 * cx + 1] = crRow[cx]
            }
            let stride = buffer.planes[1].bytesPerRow
            for cy in 0..<chromaBarsRows {
                buffer.planes[1].bytes.replaceSubrange((cy * stride)..<(cy * stride + interleaved.count), with: interleaved)
            }
        case .i420:
            for (plane, row) in [(1, cbRow), (2, crRow)] {
                let stride = buffer.planes[plane].bytesPerRow
                for cy in 0..<chromaBarsRows {
                    buffer.planes[plane].bytes.replaceSubrange((cy * stride)..<(cy * stride + chromaWidth), with: row)
                }
            }
        }
        return buffer
    }
}

/// The real-time clock in milliseconds since the Unix epoch.
public let systemWallClock: TestPatternSource.WallClock = {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
}

/// xorshift64* (Vigna 2014): one shift-xor triple and a multiply per 8 bytes; plenty random for an encoder.
struct XorShift64Star {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
