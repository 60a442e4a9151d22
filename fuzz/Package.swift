// swift-tools-version: 6.1
// rtenc fuzz targets: a separate package so the library never carries fuzzing code, and so only the modules that
// read network or file input (Bitstream, RTP, WebRTC, Timeline, and the WHEP HTTP edge with swift-nio beneath it) are
// built with the fuzzer and address sanitizer — never the CLI, libav or swift-argument-parser.
//
// Build and run (see docs/FUZZING.md; `make fuzz` and `make fuzz-smoke` do both):
//   swift build -c release --package-path fuzz --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address \
//       -Xswiftc -parse-as-library
//   fuzz/.build/release/FuzzAnnexB fuzz/Corpus/FuzzAnnexB -max_total_time=60
//
// `--sanitize fuzzer` makes SwiftPM link the executables for libFuzzer's main (without it the link fails on an
// undefined `<Target>_main`); `-Xswiftc -sanitize=fuzzer,address` is what reaches the compiler, as one flag: SwiftPM
// passes `--sanitize fuzzer --sanitize address` as two `-sanitize=` flags, and the driver keeps only the last one,
// which leaves the code without coverage instrumentation.
import PackageDescription

let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// One executable per fuzz target; each defines `LLVMFuzzerTestOneInput`.
let fuzzTargets: [(name: String, products: [String])] = [
    ("FuzzAnnexB", ["Bitstream"]),
    ("FuzzAVCC", ["Bitstream"]),
    ("FuzzAVCDecoderConfigurationRecord", ["Bitstream"]),
    ("FuzzParameterSets", ["Bitstream"]),
    ("FuzzSliceHeader", ["Bitstream"]),
    ("FuzzHEVC", ["Bitstream"]),
    ("FuzzRTPPacket", ["RTP"]),
    ("FuzzRTCPCompound", ["RTP"]),
    ("FuzzDepacketizer", ["RTP"]),
    ("FuzzWebRTCSDP", ["WebRTC"]),
    ("FuzzSTUN", ["WebRTC"]),
    ("FuzzTimeline", ["Timeline"]),
    ("FuzzWHEPHTTP", ["WebRTCHTTP"]),
]

/// What a target needs from swift-nio besides the rtenc products (the HTTP target drives an EmbeddedChannel).
let nioProducts: [String: [String]] = ["FuzzWHEPHTTP": ["NIOCore", "NIOEmbedded", "NIOHTTP1"]]

let package = Package(
    name: "rtenc-fuzz",
    dependencies: [.package(name: "rtenc", path: ".."), .package(url: "https://github.com/apple/swift-nio", from: "2.101.2")],
    targets: [
        .target(name: "FuzzSupport", swiftSettings: swiftSettings),
    ]
        + fuzzTargets.map { target in
            .executableTarget(
                name: target.name,
                dependencies: ["FuzzSupport"] + target.products.map { .product(name: $0, package: "rtenc") }
                    + (nioProducts[target.name] ?? []).map { .product(name: $0, package: "swift-nio") },
                swiftSettings: swiftSettings
            )
        }
)
