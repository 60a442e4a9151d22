import Benchmark
import Bitstream

// One second of 720p30 H.264 at 2 Mb/s, shaped like x264 zerolatency output with 2 slice threads: an IDR access
// unit (AUD, SPS, PPS, SEI, two 24 KB slices) and 29 P access units (AUD, two ~3.6 KB slices). Synthetic payload
// bytes with no 0x00 runs, so every layout is valid Annex-B and AVCC alike.
enum Workload {
    static func payload(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) | 0x01 }
    }

    static let accessUnits: [[[UInt8]]] = (0..<30).map { index in
        var nalUnits: [[UInt8]] = [[0x09, 0xF0]]
        if index == 0 {
            nalUnits += [[0x67] + payload(24, seed: 1), [0x68] + payload(4, seed: 2), [0x06] + payload(600, seed: 3)]
            nalUnits += [[0x65] + payload(24_000, seed: 4), [0x65] + payload(24_000, seed: 5)]
        } else {
            nalUnits += [[0x41] + payload(3_600 + index, seed: 6), [0x41] + payload(3_500 - index, seed: 7)]
        }
        return nalUnits
    }

    static let avcc: [[UInt8]] = accessUnits.map { try! AVCC.join($0.map { $0[...] }, lengthSize: 4) }
    static let annexB: [UInt8] = accessUnits.flatMap { AnnexB.join($0.map { $0[...] }) }
    static let totalBytes = avcc.reduce(0) { $0 + $1.count }
}

let benchmarks: @Sendable () -> Void = {
    // One iteration = one second of video (30 access units, ~250 KB). Compare each conversion with the memcpy of
    // the same bytes in the same run: the ratio is what BENCHMARKS.md records.
    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .mallocCountTotal, .wallClock],
        maxDuration: .seconds(3)
    )

    Benchmark(thresholdSafe("memcpy (1 s of 720p30 access units)"), configuration: configuration) { benchmark in
        var output = [UInt8](repeating: 0, count: 64 * 1024)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for au in Workload.avcc {
                output.withUnsafeMutableBytes { out in
                    au.withUnsafeBytes { out.copyMemory(from: $0) }
                }
            }
            blackHole(output[4])
        }
    }

    Benchmark(thresholdSafe("AVCC to Annex-B, copying (1 s of 720p30)"), configuration: configuration) { benchmark in
        var output = [UInt8](repeating: 0, count: 64 * 1024)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for au in Workload.avcc {
                _ = output.withUnsafeMutableBytes { out in
                    try! AVCC.toAnnexB(au[...], lengthSize: 4, into: out)
                }
            }
            blackHole(output[4])
        }
    }

    Benchmark(thresholdSafe("AVCC to Annex-B, in place (1 s of 720p30)"), configuration: configuration) { benchmark in
        // Each sample runs this closure once (scaledIterations is 1 by default): unique copies of the AVCC buffers
        // are made before the measurement starts, so only the in-place rewrite of the length prefixes is timed.
        var buffers = Workload.avcc.map { au in au.withUnsafeBytes { [UInt8]($0) } }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for index in buffers.indices {
                buffers[index].withUnsafeMutableBytes { try! AVCC.toAnnexBInPlace($0) }
            }
        }
        benchmark.stopMeasurement()
        blackHole(buffers)
    }

    Benchmark(thresholdSafe("Annex-B split (1 s of 720p30)"), configuration: configuration) { benchmark in
        let stream = Workload.annexB[...]
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            var count = 0
            try! AnnexB.forEachNALUnit(in: stream) { _ in count += 1 }
            blackHole(count)
        }
    }
}

/// Benchmark names with underscores for spaces: `thresholds update` writes a threshold file under the name with
/// spaces (and slashes) replaced by underscores, but `thresholds check` looks for the raw name (ordo-one/benchmark
/// issues #301, #373), so a name with spaces never finds its thresholds. micro_report.py turns them back.
func thresholdSafe(_ title: String) -> String {
    String(title.map { $0 == " " || $0 == "/" ? "_" : $0 })
}

