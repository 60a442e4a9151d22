// swift-tools-version: 6.1
// rtenc benchmarks: a separate package so the library never depends on benchmark code.
//   make bench            micro benchmarks (package-benchmark) + whole-process comparisons against ffmpeg
import PackageDescription

let package = Package(
    name: "rtenc-bench",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "rtenc", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "BitstreamBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Bitstream", package: "rtenc"),
            ],
            path: "Benchmarks/BitstreamBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "RTPBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Bitstream", package: "rtenc"),
                .product(name: "RTPOut", package: "rtenc"),
            ],
            path: "Benchmarks/RTPBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "CompositionBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Composition", package: "rtenc"),
                .product(name: "MediaCore", package: "rtenc"),
            ],
            path: "Benchmarks/CompositionBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Not a package-benchmark target: a real-time run (20 s) printing one JSON line; bench/scripts/compare.py runs it.
        .executableTarget(
            name: "LatencyProbe",
            dependencies: [
                .product(name: "Bitstream", package: "rtenc"),
                .product(name: "EncoderSession", package: "rtenc"),
                .product(name: "RTPOut", package: "rtenc"),
                .product(name: "MediaIO", package: "rtenc"),
            ],
            path: "Sources/LatencyProbe"
        ),
        // Issue 6 "Scale": how many 640x360 30 fps sessions one process runs in real time; one JSON line per run.
        .executableTarget(
            name: "ScaleProbe",
            dependencies: [
                .product(name: "Bitstream", package: "rtenc"),
                .product(name: "EncoderSession", package: "rtenc"),
                .product(name: "RTPOut", package: "rtenc"),
                .product(name: "MediaIO", package: "rtenc"),
            ],
            path: "Sources/ScaleProbe"
        ),
        // Issue 14: the overlay kernels (alpha overlay, mask blend, homography warp) at 720p through CompositionSource;
        // one JSON line per run; bench/scripts/overlay_kernels.py runs it against ffmpeg's filters.
        .executableTarget(
            name: "CompositionProbe",
            dependencies: [
                .product(name: "Composition", package: "rtenc"),
                .product(name: "MediaCore", package: "rtenc"),
            ],
            path: "Sources/CompositionProbe"
        ),
    ]
)
