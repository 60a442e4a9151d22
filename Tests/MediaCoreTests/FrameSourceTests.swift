import MediaCore
import Testing

/// The protocol's defaults and its typed failure, through a source that needs nothing but MediaCore.
@Suite struct FrameSourceTests {
    struct Exhausted: Error, Equatable {}
    struct Refused: Error, Equatable { let frame: Int }

    /// Gray frames whose luma is the frame index, 1 fps; seekable by whole seconds.
    struct CountingSource: SeekableFrameSource {
        let format = PixelFormat.i420
        let width = 4
        let height = 2
        let frameRate = Rational(1, 1)
        let count: Int
        var failAt: Int?
        var index = 0

        mutating func nextFrame(into buffer: inout PixelBuffer) throws(Refused) -> MediaTime? {
            if index == failAt { throw Refused(frame: index) }
            guard index < count else { return nil }
            if !buffer.matches(format: format, width: width, height: height) { buffer = makeBuffer() }
            for plane in buffer.planes.indices {
                buffer.planes[plane].bytes.withUnsafeMutableBufferPointer { $0.update(repeating: UInt8(index)) }
            }
            defer { index += 1 }
            return MediaTime(value: Int64(index), timescale: 1)
        }

        mutating func seek(to time: MediaTime) throws(Refused) {
            guard time.isValid, time.value >= 0 else { throw Refused(frame: -1) }
            index = Int(time.value / time.timescale)
        }
    }

    @Test func makeBufferFitsAndNextFrameFillsIt() throws {
        var source = CountingSource(count: 3)
        let buffer = source.makeBuffer()
        #expect(buffer.matches(format: .i420, width: 4, height: 2))
        var times: [MediaTime] = []
        while let (frame, pts) = try source.nextFrame() {
            #expect(frame.planes[0].bytes == [UInt8](repeating: UInt8(pts.value), count: 8))
            times.append(pts)
        }
        #expect(times.map(\.value) == [0, 1, 2])
    }

    @Test func failuresKeepTheirType() {
        var source = CountingSource(count: 3, failAt: 1)
        var buffer = source.makeBuffer()
        #expect(throws: Never.self) { _ = try source.nextFrame(into: &buffer) }
        // The thrown type is the source's own `Failure`, not `any Error`.
        let result: Result<MediaTime?, Refused> = Result { () throws(Refused) in try source.nextFrame(into: &buffer) }
        #expect(result == .failure(Refused(frame: 1)))
    }

    @Test func seekingRepositionsTheNextFrame() throws {
        var source = CountingSource(count: 10)
        try source.seek(to: MediaTime(value: 7_500, timescale: 1_000))
        #expect(try source.nextFrame()?.pts == MediaTime(value: 7, timescale: 1))
        try source.seek(to: .zero)
        #expect(try source.nextFrame()?.pts == .zero)
        try source.seek(to: MediaTime(value: 20, timescale: 1))
        #expect(try source.nextFrame() == nil)
        #expect(throws: Refused(frame: -1)) { try source.seek(to: MediaTime(value: -1, timescale: 1)) }
    }

    @Test func anExistentialOfAKnownFailureStaysTyped() throws {
        var source: any SeekableFrameSource<Refused> = CountingSource(count: 2, failAt: 1)
        var buffer = source.makeBuffer()
        _ = try source.nextFrame(into: &buffer)
        do {
            _ = try source.nextFrame(into: &buffer)
            Issue.record("expected a failure")
        } catch {
            #expect(error == Refused(frame: 1))  // `error` is a `Refused`, no cast
        }
    }
}
