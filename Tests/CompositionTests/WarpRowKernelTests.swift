import CCompositionKernels
import MediaCore
import NetworkEmulator
import Testing
@testable import Composition

/// The warp row in C (`rtenc_warp_row`: span lengths, exact span ends, interpolated samples) against the Swift it
/// replaced, kept here as the reference: on every path this CPU runs, byte for byte, on seeded random homographies
/// (from random quads, so projective as the engine's are), random column ranges (the ends clamp into the picture, so
/// any range is safe to sample), affine maps (the longest spans) among them, both divisors the warp uses (1 for luma, 2 for chroma) and each way of filling the
/// second output. The planes end on guard pages (NativeKernelTests.GuardedPlane): a read past one faults.
@Suite struct WarpRowKernelTests {
    /// The map of one canvas row, as OverlayKernels+Warp's RowMap builds it.
    struct Map {
        var u, v, d, stepU, stepV, stepD: Double

        init(_ m: [Double], x: Double, y: Double, step: Double) {
            u = m[0] * x + m[1] * y + m[2]
            v = m[3] * x + m[4] * y + m[5]
            d = m[6] * x + m[7] * y + m[8]
            (stepU, stepV, stepD) = (m[0] * step, m[3] * step, m[6] * step)
        }

        /// The engine's RowMap.fixed before it moved to C: 16.16, + bias, ÷ divisor, clamped to [0, maximum].
        func fixed(_ x: Int, bias: Double, divisor: Double, maximumU: Int, maximumV: Int) -> (u: Int, v: Int) {
            let position = Double(x), denominator = d + stepD * position
            let scale = 65536 / denominator
            guard scale.isFinite else { return (0, 0) }
            let u = ((self.u + stepU * position) * scale + bias) / divisor
            let v = ((self.v + stepV * position) * scale + bias) / divisor
            let clampedU = u > 0 ? (u < Double(maximumU) ? u : Double(maximumU)) : 0
            let clampedV = v > 0 ? (v < Double(maximumV) ? v : Double(maximumV)) : 0
            return (Int(clampedU), Int(clampedV))
        }
    }

    /// The engine's span length before it moved to C, with C's rounding down to whole blocks of eight.
    static func referenceSpanLength(_ map: Map, start: Int, end: Int, maximum: Int) -> Int {
        var worst = 0.0
        for x in [Double(start), Double(end - 1)] {
            let d = map.d + map.stepD * x
            let r = abs(map.stepD / d)
            let slopeU = abs((map.stepU * d - (map.u + map.stepU * x) * map.stepD) / (d * d))
            let slopeV = abs((map.stepV * d - (map.v + map.stepV * x) * map.stepD) / (d * d))
            worst = max(worst, r * max(slopeU, slopeV))
        }
        guard worst > 0, worst.isFinite else { return maximum }
        let length = Int(min(Double(maximum), max(2, (1 / (128 * worst)).squareRoot())))
        return length >= 8 ? length & ~7 : length
    }

    /// The engine's fastRow before it moved to C: (x, u, v) of every sample of [start, end).
    static func referencePoints(_ map: Map, start: Int, end: Int, bias: Double, divisor: Double, maximumU: Int,
                                maximumV: Int, maximumSpan: Int) -> [(x: Int, u: Int, v: Int)] {
        guard start < end else { return [] }
        let length = referenceSpanLength(map, start: start, end: end, maximum: maximumSpan), last = end - 1
        var points: [(x: Int, u: Int, v: Int)] = []
        var x = start
        var (u, v) = map.fixed(x, bias: bias, divisor: divisor, maximumU: maximumU, maximumV: maximumV)
        while true {
            let next = min(x + length, last)
            guard next > x else {
                points.append((x, u, v))
                return points
            }
            let (nextU, nextV) = map.fixed(next, bias: bias, divisor: divisor, maximumU: maximumU, maximumV: maximumV)
            let n = next - x, stepU = (nextU - u) / n, stepV = (nextV - v) / n
            for i in 0..<n { points.append((x + i, u + i * stepU, v + i * stepV)) }
            (u, v, x) = (nextU, nextV, next)
        }
    }

    /// How the second output is filled: not at all, from a second plane, or 255 (an opaque picture's coverage).
    enum Second: CaseIterable { case none, plane, opaque }

    @Test(arguments: KernelPath.available)
    func warpRowMatchesTheSwiftReferenceOnRandomRows(_ path: KernelPath) throws {
        var random = SeededGenerator(seed: 1414)
        var checkedSamples = 0
        for trial in 0..<600 {
            let width = Int.random(in: 4...160, using: &random), height = Int.random(in: 4...120, using: &random)
            let stride = width + (trial % 3 == 0 ? 0 : Int.random(in: 1...20, using: &random))
            let secondStride = trial % 4 == 0 ? stride : width + Int.random(in: 0...7, using: &random)
            func planeBytes(_ stride: Int) -> [UInt8] {
                (0..<(stride * (height - 1) + width)).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
            let first = NativeKernelTests.GuardedPlane(bytes: planeBytes(stride))
            let secondPlane = NativeKernelTests.GuardedPlane(bytes: planeBytes(secondStride))
            // A quad around a canvas a little larger than the picture, corners jittered (some strongly: real
            // perspective), and the row anywhere on it.
            let canvas = Double(max(width, height)) * 1.3
            func jitter(_ value: Double) -> Double {
                value + Double.random(in: -0.35...0.35, using: &random) * canvas * (trial % 5 == 0 ? 1 : 0.3)
            }
            var corners = [jitter(0), jitter(0), jitter(canvas), jitter(0), jitter(canvas), jitter(canvas),
                           jitter(0), jitter(canvas)]
            if trial % 7 == 0 {
                // A parallelogram (bottom right = top right + bottom left − top left): an affine map, whose
                // denominator is constant, so every span takes the longest length.
                corners[4] = corners[2] + corners[6] - corners[0]
                corners[5] = corners[3] + corners[7] - corners[1]
            }
            let quad = Quad(corners)
            guard let inverse = Homography(width: width, height: height, quad: quad)?.inverted else { continue }
            let divisor: Double = trial % 2 == 0 ? 1 : 2, count = Int(canvas)
            let y = Double.random(in: 0...canvas, using: &random).rounded(.down)
            let map = Map(inverse.m, x: 0, y: y, step: divisor)
            let start = Int.random(in: 0..<count, using: &random)
            let end = Int.random(in: 0...1, using: &random) == 0 ? count : Int.random(in: start...count, using: &random)
            let maximumU = ((width - 1) << 16) - 1, maximumV = ((height - 1) << 16) - 1
            let second = Second.allCases[trial % 3]
            var output = [UInt8](repeating: 7, count: count), secondOutput = [UInt8](repeating: 9, count: count)
            output.withUnsafeMutableBufferPointer { output in
                secondOutput.withUnsafeMutableBufferPointer { secondOutput in
                    NativeKernels.warpRow(.init(
                        u: map.u, v: map.v, d: map.d, step_u: map.stepU, step_v: map.stepV, step_d: map.stepD,
                        start: start, end: end, maximum_span: OverlayKernels.maximumSpanLength, bias: 128,
                        divisor: divisor, maximum_u: Int64(maximumU), maximum_v: Int64(maximumV), plane: first.plane,
                        stride: stride, second: second == .plane ? secondPlane.plane : nil,
                        second_stride: secondStride, output: output.baseAddress,
                        second_output: second == .none ? nil : secondOutput.baseAddress), path: path)
                }
            }
            var expected = [UInt8](repeating: 7, count: count), expectedSecond = [UInt8](repeating: 9, count: count)
            for point in Self.referencePoints(map, start: start, end: end, bias: 128, divisor: divisor,
                                              maximumU: maximumU, maximumV: maximumV,
                                              maximumSpan: OverlayKernels.maximumSpanLength) {
                expected[point.x] = NativeKernelTests.referenceSample(first.plane, stride: stride, point.u, point.v)
                switch second {
                case .none: break
                case .plane:
                    expectedSecond[point.x] = NativeKernelTests.referenceSample(secondPlane.plane,
                                                                                stride: secondStride, point.u, point.v)
                case .opaque: expectedSecond[point.x] = 255
                }
                checkedSamples += 1
            }
            #expect(output == expected && secondOutput == expectedSecond,
                    "trial \(trial): \(width)x\(height), row \(y), columns \(start)..<\(end), divisor \(divisor), \(second)")
            if output != expected || secondOutput != expectedSecond { return }
        }
        #expect(checkedSamples > 20_000)  // most trials sample a real range
    }
}
