import Bitstream
import Testing
import EncoderSession
@testable import MediaIO

@Suite struct TestPatternSourceTests {
    /// A clock that advances 33 ms per call from a known instant: 12:34:56.789 UTC on 2024-01-01.
    static func steppingClock() -> TestPatternSource.WallClock {
        let start: Int64 = 1_704_112_496_789
        let calls = Counter()
        return { start + 33 * calls.next() }
    }

    final class Counter: @unchecked Sendable {
        private var value: Int64 = -1
        func next() -> Int64 { value += 1; return value }
    }

    @Test(arguments: PixelFormat.allCases, TestPatternSource.Content.allCases)
    func sameInputsGiveSameBytes(format: PixelFormat, content: TestPatternSource.Content) throws {
        var a = try TestPatternSource(width: 320, height: 240, format: format, content: content, clock: Self.steppingClock())
        var b = try TestPatternSource(width: 320, height: 240, format: format, content: content, clock: Self.steppingClock())
        for _ in 0..<3 {
            let frameA = try #require(try a.nextFrame())
            let frameB = try #require(try b.nextFrame())
            #expect(frameA.pts == frameB.pts)
            #expect(frameA.buffer.packedBytes == frameB.buffer.packedBytes)
        }
    }

    @Test(arguments: PixelFormat.allCases, TestPatternSource.Content.allCases)
    func consecutiveFramesDiffer(format: PixelFormat, content: TestPatternSource.Content) throws {
        // A frozen clock: any difference comes from the motion (or the frame number), not from the time.
        var source = try TestPatternSource(width: 160, height: 120, format: format, content: content, clock: { 0 })
        var previous = try #require(try source.nextFrame()).buffer.packedBytes
        for _ in 0..<5 {
            let current = try #require(try source.nextFrame()).buffer.packedBytes
            #expect(current != previous)
            previous = current
        }
    }

    @Test func boxMovesOutsideTheOverlay() throws {
        var source = try TestPatternSource(width: 320, height: 240, format: .i420, clock: { 0 })
        let first = try #require(try source.nextFrame()).buffer
        let second = try #require(try source.nextFrame()).buffer
        // Rows below the overlay box (which holds the frame number) must still change: that is the moving box.
        let rowsBelowOverlay = (120 * 320)..<(240 * 320)
        #expect(first.planes[0].bytes[rowsBelowOverlay] != second.planes[0].bytes[rowsBelowOverlay])
    }

    @Test func timestampsCountFramesExactly() throws {
        var source = try TestPatternSource(width: 64, height: 48, frameRate: Rational(30000, 1001), clock: { 0 })
        var buffer = source.makeBuffer()
        for index in 0..<4 {
            let pts = try #require(try source.nextFrame(into: &buffer))
            #expect(pts == MediaTime(value: Int64(index) * 1001, timescale: 30000))
        }
    }

    @Test(arguments: [PixelFormat.nv12, .i420])
    func reusesTheCallersBuffer(format: PixelFormat) throws {
        var source = try TestPatternSource(width: 128, height: 96, format: format, clock: { 0 })
        var buffer = source.makeBuffer()
        _ = try source.nextFrame(into: &buffer)
        let addresses = (0..<format.planeCount).map { buffer.storageAddress(ofPlane: $0) }
        for _ in 0..<3 {
            _ = try source.nextFrame(into: &buffer)
            #expect((0..<format.planeCount).map { buffer.storageAddress(ofPlane: $0) } == addresses)
        }
    }

    @Test func replacesABufferThatDoesNotFit() throws {
        var source = try TestPatternSource(width: 64, height: 48, format: .nv12, clock: { 0 })
        var buffer = PixelBuffer(format: .i420, width: 16, height: 16)
        _ = try source.nextFrame(into: &buffer)
        #expect(buffer.format == .nv12 && buffer.width == 64 && buffer.height == 48)
    }

    @Test func clockOnlyChangesTheOverlay() throws {
        var early = try TestPatternSource(width: 320, height: 240, format: .i420, clock: { 0 })
        var late = try TestPatternSource(width: 320, height: 240, format: .i420, clock: { 45_296_789 })
        let a = try #require(try early.nextFrame()).buffer
        let b = try #require(try late.nextFrame()).buffer
        #expect(a.planes[0].bytes != b.planes[0].bytes)
        // Scale 3 at 240 rows: the overlay is 2 lines of 9×3 rows plus margins, well inside the top 60 rows.
        #expect(a.planes[0].bytes[(60 * 320)...] == b.planes[0].bytes[(60 * 320)...])
    }

    @Test func digitsAreDrawnWhereExpected() throws {
        // 240 rows → scale 3, margin 6. Frame 0 prints "000000"; the glyph "0" has top row 01110.
        var source = try TestPatternSource(width: 320, height: 240, format: .i420, clock: { 0 })
        let luma = try #require(try source.nextFrame()).buffer.planes[0].bytes
        let scale = 3, margin = 6
        func pixel(_ x: Int, _ y: Int) -> UInt8 { luma[y * 320 + x] }
        #expect(pixel(margin, margin) == 16)                 // font column 0 unlit: the black box
        #expect(pixel(margin + scale, margin) == 235)        // font column 1 lit
        #expect(pixel(margin + 4 * scale, margin) == 16)     // font column 4 unlit
        #expect(pixel(margin + 1, margin + 3 * scale) == 235) // row 3 "10101": column 0 lit
    }

    @Test(arguments: [
        (Int64(0), "00:00:00.000"),
        (45_296_789, "12:34:56.789"),
        (86_399_999, "23:59:59.999"),
        (86_400_000, "00:00:00.000"),
        (1_704_112_496_789, "12:34:56.789"),
        (-1, "23:59:59.999"),
    ])
    func formatsTimeOfDay(milliseconds: Int64, expected: String) {
        #expect(TestPatternSource.formatTimeOfDay(millisecondsSinceEpoch: milliseconds) == expected)
    }

    @Test(arguments: [
        (Int64(0), 6, "000000"), (39, 6, "000039"), (123_456, 6, "123456"), (1_234_567, 6, "1234567"),
        (5, 1, "5"), (10, 2, "10"), (Int64.max, 1, "9223372036854775807"),
    ])
    func formatsDigits(value: Int64, minimumDigits: Int, expected: String) {
        var text: [UInt8] = Array("x".utf8)
        TestPatternSource.appendDigits(of: value, minimumDigits: minimumDigits, to: &text)
        #expect(String(decoding: text, as: UTF8.self) == "x" + expected)
    }

    @Test(arguments: [(0, 48), (64, 0), (63, 48), (64, 47), (-2, 48), (maximumDimension + 2, 48)])
    func rejectsBadGeometry(width: Int, height: Int) {
        #expect(throws: MediaIOError.self) { try TestPatternSource(width: width, height: height) }
    }

    @Test func rejectsZeroFrameRate() throws {
        let error = try #require(throws: MediaIOError.self) {
            try TestPatternSource(width: 64, height: 48, frameRate: Rational(0, 1))
        }
        #expect(error.code == .invalidArgument)
    }

    @Test func noiseDependsOnTheSeed() throws {
        var a = try TestPatternSource(width: 64, height: 48, content: .noise, seed: 1, clock: { 0 })
        var b = try TestPatternSource(width: 64, height: 48, content: .noise, seed: 2, clock: { 0 })
        #expect(try #require(try a.nextFrame()).buffer.packedBytes != #require(try b.nextFrame()).buffer.packedBytes)
    }
}

/// `TestPatternSource` is the one `SeekableFrameSource` so far: a seek lands on the frame a sequential read reaches.
@Suite struct TestPatternSeekTests {
    /// Seek to (value, timescale) at 30000/1001 fps → the frame index expected next.
    static let seeks: [(Int64, Int64, Int64)] = [
        (0, 1, 0),
        (1001, 30000, 1),          // exactly frame 1's pts
        (1000, 30000, 0),          // just before it: still frame 0
        (2, 1, 59),                // 2 s × 29.97 = 59.94 → frame 59
        (3003, 90_000, 1),         // frame 1 in RTP ticks
        (90_000 * 60, 90_000, 1798),
    ]

    @Test(arguments: seeks)
    func seekLandsOnTheFrameShownAtThatTime(value: Int64, timescale: Int64, expectedIndex: Int64) throws {
        var source = try TestPatternSource(width: 64, height: 48, frameRate: Rational(30000, 1001), clock: { 0 })
        try source.seek(to: MediaTime(value: value, timescale: timescale))
        let pts = try #require(try source.nextFrame()).pts
        #expect(pts == MediaTime(value: expectedIndex * 1001, timescale: 30000))
    }

    @Test(arguments: [PixelFormat.nv12, .i420])
    func aSeekedFrameHasTheBytesOfASequentialRead(format: PixelFormat) throws {
        var sequential = try TestPatternSource(width: 160, height: 120, format: format, clock: { 0 })
        for _ in 0..<7 { _ = try sequential.nextFrame() }
        let expected = try #require(try sequential.nextFrame())
        var seeking = try TestPatternSource(width: 160, height: 120, format: format, clock: { 0 })
        for _ in 0..<9 { _ = try seeking.nextFrame() }  // past it, so the seek goes back
        try seeking.seek(to: MediaTime(value: 7, timescale: 30))  // frame 7, as the sequential read reached
        let frame = try #require(try seeking.nextFrame())
        #expect(frame.pts == expected.pts)
        #expect(frame.buffer.packedBytes == expected.buffer.packedBytes)
    }

    static let unreachable: [(MediaTime, MediaIOError.Code)] = [
        (MediaTime(value: -1, timescale: 30), .invalidArgument),
        (MediaTime(value: 1, timescale: 0), .invalidArgument),
        (MediaTime(value: 1, timescale: -30), .invalidArgument),
        (MediaTime(value: Int64.max, timescale: 1), .limitExceeded),  // frame index × 1001 overflows the pts
    ]

    @Test(arguments: unreachable)
    func refusesTimesItCannotReach(time: MediaTime, code: MediaIOError.Code) throws {
        var source = try TestPatternSource(width: 64, height: 48, frameRate: Rational(30000, 1001), clock: { 0 })
        let error = try #require(throws: MediaIOError.self) { try source.seek(to: time) }
        #expect(error.code == code)
        // The source is where it was.
        #expect(try #require(try source.nextFrame()).pts == .zero)
    }
}
