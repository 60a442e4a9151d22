import MediaCore
import Testing
@testable import Composition
@testable import Timeline

/// The wipe shapes that have no FFmpeg 5.1 twin, by their own properties: exact endpoints, coverage that never shrinks
/// as progress grows, their symmetries, where they start. (xfade's `circleopen`/`circleclose` and `radial` are not the
/// same geometry: they blend through a smoothstep one whole radius (one radian) wide, with progress mapped to
/// −0.5…2.5, so no hard-edged or linearly ramped map equals them.)
@Suite struct WipeShapeTests {
    typealias Wipe = Timeline.Transition.Wipe

    static let shapes: [Wipe.Shape] = [
        .linear(.left), .linear(.right), .linear(.up), .linear(.down),
        .diagonal(.upLeft), .diagonal(.upRight), .diagonal(.downLeft), .diagonal(.downRight),
        .iris(.open), .iris(.close), .clock(.clockwise), .clock(.counterclockwise), .star(.open), .star(.close),
    ]

    static let width = 96, height = 64

    /// Flat frames: outgoing Y′ 16, incoming Y′ 235 (chroma 128 both).
    static func flat(_ luma: UInt8) -> PixelBuffer {
        var buffer = PixelBuffer(format: .i420, width: width, height: height)
        PlaneKernels.fill(&buffer, with: [luma, 128, 128])
        return buffer
    }

    /// Share of luma samples weighted towards the incoming picture at `progress`.
    static func coverage(_ map: LumaMap, _ progress: Double, softness: Double) throws -> Double {
        var out = flat(0)
        try map.wipe(flat(16), flat(235), into: &out, progress: progress, softness: softness)
        return out.planes[0].bytes.reduce(0.0) { $0 + Double(Int($1) - 16) / 219 } / Double(width * height)
    }

    @Test(arguments: shapes)
    func endpointsAreExactAndCoverageNeverShrinks(_ shape: Wipe.Shape) throws {
        let map = LumaMap(shape: shape, width: Self.width, height: Self.height)
        let outgoing = PixelBuffer.testPattern(seed: 1, width: Self.width, height: Self.height)
        let incoming = PixelBuffer.testPattern(seed: 2, width: Self.width, height: Self.height)
        for softness in [0, 0.25, 1] {
            var out = Self.flat(0)
            try map.wipe(outgoing, incoming, into: &out, progress: 0, softness: softness)
            #expect(out.planes.map(\.bytes) == outgoing.planes.map(\.bytes), "\(shape) softness \(softness) at 0")
            try map.wipe(outgoing, incoming, into: &out, progress: 1, softness: softness)
            #expect(out.planes.map(\.bytes) == incoming.planes.map(\.bytes), "\(shape) softness \(softness) at 1")
            var previous = 0.0
            for step in 0...40 {
                let coverage = try Self.coverage(map, Double(step) / 40, softness: softness)
                #expect(coverage >= previous, "\(shape) softness \(softness) step \(step)")
                previous = coverage
            }
            #expect(previous == 1)
        }
    }

    @Test func aHardEdgeHasTwoValuesASoftOneRamps() throws {
        let map = LumaMap(shape: .iris(.open), width: Self.width, height: Self.height)
        var out = Self.flat(0)
        try map.wipe(Self.flat(16), Self.flat(235), into: &out, progress: 0.5, softness: 0)
        #expect(Set(out.planes[0].bytes) == [16, 235])
        try map.wipe(Self.flat(16), Self.flat(235), into: &out, progress: 0.5, softness: 0.5)
        #expect(Set(out.planes[0].bytes).count > 20)
    }

    func value(_ map: LumaMap, _ x: Int, _ y: Int) -> Int { Int(map.luma[y * map.width + x]) }

    @Test func irisIsSymmetricAndStartsAtTheCentre() {
        let open = LumaMap(shape: .iris(.open), width: Self.width, height: Self.height)
        let close = LumaMap(shape: .iris(.close), width: Self.width, height: Self.height)
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                #expect(value(open, x, y) == value(open, Self.width - 1 - x, y))
                #expect(value(open, x, y) == value(open, x, Self.height - 1 - y))
                #expect(value(close, x, y) == 65535 - value(open, x, y))
            }
        }
        let centre = value(open, Self.width / 2, Self.height / 2)
        #expect(open.luma.min().map(Int.init) == centre)
        #expect(open.luma.max().map(Int.init) == value(open, 0, 0))
    }

    @Test func clockSweepsFromTwelveClockwise() {
        let map = LumaMap(shape: .clock(.clockwise), width: Self.width, height: Self.height)
        let (cx, cy) = (Self.width / 2, Self.height / 2)
        // 12, 3, 6 and 9 o'clock at a quarter turn each (pixel centres are half a pixel off the axes).
        let hours: [(Int, Int, Double)] = [(cx, 0, 0), (Self.width - 1, cy, 0.25), (cx - 1, Self.height - 1, 0.5),
                                           (0, cy - 1, 0.75)]
        for (x, y, turn) in hours {
            #expect(abs(Double(value(map, x, y)) / 65536 - turn) < 0.01, "(\(x), \(y))")
        }
        // Mirrored left ↔ right, a clockwise sweep is the counterclockwise one.
        let counter = LumaMap(shape: .clock(.counterclockwise), width: Self.width, height: Self.height)
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                #expect(abs(value(counter, x, y) - value(map, Self.width - 1 - x, y)) <= 2, "(\(x), \(y))")
            }
        }
    }

    @Test func starIsMirroredAndPointsUp() {
        let map = LumaMap(shape: .star(.open), width: Self.width, height: Self.height)
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                #expect(abs(value(map, x, y) - value(map, Self.width - 1 - x, y)) <= 1)
            }
        }
        // Along the vertical axis the upper point reaches further than the notch below the centre: the pixel 20
        // above the centre switches before the one 20 below.
        let (cx, cy) = (Self.width / 2, Self.height / 2)
        #expect(value(map, cx, cy - 20) < value(map, cx, cy + 19))
        #expect(map.luma.max()! > 65000)
    }

    @Test func diagonalRunsCornerToCorner() {
        let map = LumaMap(shape: .diagonal(.downRight), width: Self.width, height: Self.height)
        #expect(map.luma.min() == map.luma[0])
        #expect(map.luma.max() == map.luma[map.luma.count - 1])
        let upLeft = LumaMap(shape: .diagonal(.upLeft), width: Self.width, height: Self.height)
        #expect(zip(map.luma, upLeft.luma.reversed()).allSatisfy { $0 == $1 })
    }

    /// The 16-bit soft path (15-bit map, weights in 1/256) against the 32-bit one (16-bit map, 1/4096): within one
    /// code value everywhere, at every progress.
    @Test func theTwoRampPathsAgree() {
        let map = LumaMap(shape: .star(.open), width: Self.width, height: Self.height)
        let outgoing = PixelBuffer.testPattern(seed: 3, width: Self.width, height: Self.height)
        let incoming = PixelBuffer.testPattern(seed: 4, width: Self.width, height: Self.height)
        for ramp in [514, 6554, 65536] {
            for step in 0...20 {
                let progress = Double(step) / 20
                let threshold = Int32((progress * Double(65535 + ramp)).rounded(.up))
                var wide = Self.flat(0), narrow = Self.flat(0)
                for plane in 0..<3 {
                    let values = plane == 0 ? map.luma : map.chroma
                    PlaneKernels.wipe(plane: plane, outgoing, incoming, into: &wide, map: values, threshold: threshold,
                                      ramp: Int32(ramp))
                    PlaneKernels.wipe(plane: plane, outgoing, incoming, into: &narrow, map: values, progress: progress,
                                      ramp: ramp)
                }
                let worst = zip(wide.planes.flatMap(\.bytes), narrow.planes.flatMap(\.bytes))
                    .map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= 1, "ramp \(ramp), progress \(progress): \(worst)")
            }
        }
    }

    @Test func framesOfAnotherLayoutAreRefused() {
        let map = LumaMap(shape: .linear(.left), width: Self.width, height: Self.height)
        var out = Self.flat(0)
        let small = PixelBuffer(format: .i420, width: 32, height: 32)
        let nv12 = PixelBuffer(format: .nv12, width: Self.width, height: Self.height)
        #expect(throws: CompositionError.self) { try map.wipe(small, Self.flat(1), into: &out, progress: 0.5, softness: 0) }
        #expect(throws: CompositionError.self) { try map.wipe(Self.flat(1), nv12, into: &out, progress: 0.5, softness: 0) }
        var short = Self.flat(0)
        short.planes[2].bytes.removeLast()
        do {
            try map.wipe(Self.flat(1), Self.flat(2), into: &short, progress: 0.5, softness: 0.2)
            Issue.record("a short plane was written")
        } catch {
            #expect(error.code == .layout && error.reason.contains("destination"))
        }
    }

    @Test func oddSidesHaveChromaMapsOfThePlanesSize() throws {
        let map = LumaMap(shape: .iris(.open), width: 7, height: 5)
        #expect(map.chroma.count == 4 * 3)
        var out = PixelBuffer(format: .i420, width: 7, height: 5)
        let a = PixelBuffer.testPattern(seed: 1, width: 7, height: 5), b = PixelBuffer.testPattern(seed: 2, width: 7, height: 5)
        try map.wipe(a, b, into: &out, progress: 1, softness: 0.3)
        #expect(out.planes.map(\.bytes) == b.planes.map(\.bytes))
    }

    @Test func chromaMapTakesTheLastSampleOfEachBlock() {
        let luma: [UInt16] = [0, 1, 10, 20,
                              2, 4, 30, 65535]
        let map = LumaMap(width: 4, height: 2, luma: luma)
        #expect(map.chroma == [4, 65535])
    }
}

extension PixelBuffer {
    /// A deterministic busy I420 picture (every sample differs from its neighbours).
    static func testPattern(seed: Int, width: Int, height: Int) -> PixelBuffer {
        var buffer = PixelBuffer(format: .i420, width: width, height: height)
        for plane in 0..<3 {
            for index in buffer.planes[plane].bytes.indices {
                buffer.planes[plane].bytes[index] = UInt8(truncatingIfNeeded: index &* 37 &+ seed &* 101 &+ plane &* 53)
            }
        }
        return buffer
    }
}
