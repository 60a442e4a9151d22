import Benchmark
import Bitstream

let benchmarks: @Sendable () -> Void = {
    Benchmark("memcpy 1 MiB", configuration: .init(metrics: [.throughput, .mallocCountTotal])) { benchmark in
        let source = [UInt8](repeating: 7, count: 1 << 20)
        var destination = [UInt8](repeating: 0, count: 1 << 20)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            destination.withUnsafeMutableBytes { d in source.withUnsafeBytes { s in d.copyMemory(from: s) } }
            blackHole(destination)
        }
    }
}
