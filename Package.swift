// swift-tools-version: 6.1
// rtenc: raw video frames → H.264 → RTP a real peer decodes.
//
// Module layout (see ARCHITECTURE.md; scripts/check-architecture.sh enforces the allowed imports):
//   MediaCore       the shared media vocabulary: MediaTime, Rational, Instant + clocks, PixelBuffer, FrameSource
//                   (Swift standard library only)
//   Bitstream       pure Swift H.264 bitstream work (no libav, no sockets, no clocks)
//   CLibAV          C shims for what Swift cannot import from libav*/libva (macros, variadics), and the loader that
//                   opens every libav*/libva library on first use (none is linked)
//   LibAVSupport    the libav status codes, loop states and av_strerror text every libav-calling module shares
//   LibAVLog        libav's log through swift-log
//   EncoderSession  VTCompressionSession-shaped encoder over libavcodec (libx264, h264_vaapi)
//   RTP             the sans-IO RTP core: RFC 6184/7798 payloaders, RTCP, pacing, SDP, RTPSendSession/RTPReceiveSession
//   RTPOut          RTP's I/O edge: UDP (sendmmsg, GSO, epoll), threads, SRTP, the RTPSender/RTPReceiver façades
//   DTLS            DTLS 1.2 + DTLS-SRTP over OpenSSL 3 (CDTLS): certificates, a sans-IO endpoint, SRTP keys per direction
//   MediaIO         frame sources (test pattern, Y4M, libavformat files) and file sinks (.h264, .mp4)
//   CongestionControl  one owner of the rate: feedback (REMB/TMMBR, PLI/FIR) → encoder target + pacing rate (pure)
//   StreamControl   the live glue: a BitrateController applied to a CompressionSession and an RTPSender together
//   Timeline        the timeline format (versioned JSON, corner tracks) and its planner: pure, MediaCore only
//   Composition     the engine: a Timeline rendered as a FrameSource over MediaIO's readers (re-exports Timeline)
//   CCompositionKernels  the engine's blend and warp loops in C, portable and AVX2 (chosen at run time)
//   Threads         one POSIX thread per closure, joinable or detached (RTPOut's I/O loops, Composition's opens)
//   CongestionSimulationEncoder  real libx264 as the congestion-control simulator's codec (an edge over EncoderSession)
//   BitrateAdaptation  scenarios, pluggable bitrate policies, metrics and plots for `rtenc bench adapt`
//   rtenc           the command-line tool
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "rtenc",
    products: [
        .library(name: "MediaCore", targets: ["MediaCore"]),
        .library(name: "Bitstream", targets: ["Bitstream"]),
        .library(name: "EncoderSession", targets: ["EncoderSession"]),
        .library(name: "LibAVLog", targets: ["LibAVLog"]),
        .library(name: "RTP", targets: ["RTP"]),
        .library(name: "RTPOut", targets: ["RTPOut"]),
        .library(name: "MediaIO", targets: ["MediaIO"]),
        .library(name: "CongestionControl", targets: ["CongestionControl"]),
        .library(name: "WebRTC", targets: ["WebRTC"]),
        .library(name: "WebRTCHTTP", targets: ["WebRTCHTTP"]),
        .library(name: "WHIPClient", targets: ["WHIPClient"]),
        .library(name: "DTLS", targets: ["DTLS"]),
        .library(name: "StreamControl", targets: ["StreamControl"]),
        .library(name: "Timeline", targets: ["Timeline"]),
        .library(name: "Composition", targets: ["Composition"]),
        .library(name: "BitrateAdaptation", targets: ["BitrateAdaptation"]),
        .library(name: "CongestionSimulation", targets: ["CongestionSimulation"]),
        .library(name: "CongestionSimulationEncoder", targets: ["CongestionSimulationEncoder"]),
        .executable(name: "rtenc", targets: ["rtenc"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The WHIP client (issue 16): only the WHIPClient target links it (HTTPS through swift-nio-ssl and BoringSSL, which
        // take ~4 min to compile on 2 cores: the WHEP server, the fuzz package and the ASan build never need them).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Already beneath AsyncHTTPClient; named for `--whip-ca-file` (the CA certificates read up front).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.36.0"),
    ],
    targets: [
        .target(name: "MediaCore", swiftSettings: swiftSettings),
        .target(name: "Bitstream", dependencies: ["MediaCore"], swiftSettings: swiftSettings),
        // No libav*/libva library is linked: each is opened with dlopen on first use (libraries.c), which keeps ~96
        // libraries and ~15 ms of dynamic loading out of every process that never encodes, decodes or demuxes.
        .target(name: "CLibAV"),
        // libav's status codes, loop states (EAGAIN, EOF) and av_strerror text, shared by every module that calls libav
        // (package-level; each module keeps its own error type). Not a product.
        .target(name: "LibAVSupport", dependencies: ["CLibAV"], swiftSettings: swiftSettings),
        // libav's log (and x264's, VA-API's) through swift-log, shared by every module that opens libav.
        .target(
            name: "LibAVLog",
            dependencies: ["CLibAV", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EncoderSession",
            dependencies: ["MediaCore", "Bitstream", "CLibAV", "LibAVSupport", "LibAVLog"],
            swiftSettings: swiftSettings
        ),
        // sendmmsg(2)/eventfd(2) are hidden behind _GNU_SOURCE in Glibc's Swift module; this tiny C target exports them.
        .target(name: "CUDPShim"),
        // libsrtp2 (Debian libsrtp2-dev) for SRTP/SRTCP: a plain C target, so its header is dependency-tracked.
        .target(name: "CSRTP", linkerSettings: [.linkedLibrary("srtp2")]),
        // OpenSSL 3 (Debian libssl-dev) for DTLS 1.2 with DTLS-SRTP: certificates, the handshake over memory BIOs,
        // the SRTP keying material. A plain C target like CSRTP.
        .target(name: "CDTLS", linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        // The sans-IO core: time handed in, datagrams and events out; no sockets, threads, clocks or C (the compiler keeps
        // it so: it depends on nothing that has them).
        .target(name: "RTP", dependencies: ["MediaCore", "Bitstream"], swiftSettings: swiftSettings),
        // Its I/O edge, which re-exports it.
        .target(name: "RTPOut", dependencies: ["RTP", "MediaCore", "Bitstream", "CUDPShim", "CSRTP", "Threads"],
                swiftSettings: swiftSettings),
        // One POSIX thread per closure (joinable or detached), for the edges that start threads: RTPOut and
        // Composition, which may not import each other; MediaCore holds no C library.
        .target(name: "Threads", swiftSettings: swiftSettings),
        // Userspace network impairment (loss, delay, jitter, reordering, rate limits) and the UDP relay for `rtenc relay`.
        .target(name: "NetworkEmulator", dependencies: ["MediaCore", "RTPOut"], swiftSettings: swiftSettings),
        .target(
            name: "MediaIO",
            dependencies: ["MediaCore", "Bitstream", "CLibAV", "LibAVSupport", "LibAVLog"],
            swiftSettings: swiftSettings
        ),
        // The rate's one owner, pure (time handed in; no encoder, no sockets): issue 17's congestion control goes here.
        .target(name: "CongestionControl", dependencies: ["MediaCore", "RTP"], swiftSettings: swiftSettings),
        // The deterministic discrete-event closed loop for congestion control (issue 17): bottleneck, traces, cross
        // traffic, synthetic codec, the RTP sessions in virtual time, RFC 8867 cases, the analyser. Pure.
        .target(
            name: "CongestionSimulation", dependencies: ["MediaCore", "Bitstream", "RTP", "CongestionControl"],
            swiftSettings: swiftSettings
        ),
        // Real libx264 in the simulator's loop: a SimulatedCodec over a CompressionSession fed MediaIO's test pattern on the
        // simulated clock. The edge that keeps CongestionSimulation free of libav.
        .target(
            name: "CongestionSimulationEncoder", dependencies: ["MediaCore", "CongestionSimulation", "EncoderSession", "MediaIO"],
            swiftSettings: swiftSettings
        ),
        // Pure WebRTC signalling and transport state: STUN, ICE agents, RFC 7983 demultiplexing, SDP offer/answer (issue 16).
        .target(name: "WebRTC", dependencies: ["MediaCore", "Bitstream", "RTP"], swiftSettings: swiftSettings),
        // The WHEP HTTP server edge on swift-nio: only the CLI links it (and fuzz/'s FuzzWHEPHTTP), never the pure modules.
        .target(
            name: "WebRTCHTTP",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "WebRTCTransport",
            ],
            swiftSettings: swiftSettings),
        // The WHIP signalling client (RFC 9725) on AsyncHTTPClient, HTTPS through swift-nio-ssl: a target of its own so
        // that only the CLI (and its tests) compile BoringSSL.
        .target(
            name: "WHIPClient",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings),
        // DTLS's edge (issue 16): certificates and fingerprints, a sans-IO DTLSEndpoint over CDTLS, the SRTP keys per
        // direction. No OpenSSL type in its API.
        .target(name: "DTLS", dependencies: ["CDTLS", "MediaCore"], swiftSettings: swiftSettings),
        // The WebRTC transport edge (issue 16): one UDP socket for every viewer, an I/O thread demultiplexing STUN/DTLS/SRTCP
        // to each viewer's ICE-lite agent, DTLS endpoint and RTPSendSession; `WebRTCServer`, what a WHEP endpoint drives.
        .target(
            name: "WebRTCTransport", dependencies: ["MediaCore", "RTPOut", "WebRTC", "DTLS", "CongestionControl"],
            swiftSettings: swiftSettings
        ),
        // The glue that needs both sides: a BitrateController applied to a CompressionSession and an RTPSender.
        .target(
            name: "StreamControl", dependencies: ["MediaCore", "CongestionControl", "EncoderSession", "RTPOut"],
            swiftSettings: swiftSettings
        ),
        // Timelines: the JSON format (its own strict parser), corner tracks and the planner, pure: MediaCore only, so
        // the fuzz package builds it with the sanitizers and `rtenc timeline check` needs no decoder.
        .target(name: "Timeline", dependencies: ["MediaCore"], swiftSettings: swiftSettings),
        // The engine: a Timeline as a FrameSource over MediaIO's readers. Never the encoder or RTP: rendering and
        // streaming a timeline is wired in the CLI.
        .target(name: "Composition", dependencies: ["MediaCore", "MediaIO", "Timeline", "CCompositionKernels", "Threads"],
                swiftSettings: swiftSettings),
        // The engine's hottest loops (the overlay blend, the warp's bilinear samples) in C, portable and AVX2 per
        // function (__attribute__((target("avx2"))): no build flag, the package still runs on baseline x86-64), the
        // path chosen once at run time from CPUID. Composition's NativeKernels.swift is the only caller.
        .target(name: "CCompositionKernels"),
        .target(
            name: "BitrateAdaptation",
            dependencies: ["MediaCore", "EncoderSession", "MediaIO", "Bitstream"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "rtenc",
            dependencies: [
                // No CLibAV: the CLI makes no libav calls of its own (scripts/check-architecture.sh).
                "MediaCore", "Bitstream", "EncoderSession", "RTPOut", "MediaIO", "LibAVLog", "BitrateAdaptation",
                "NetworkEmulator", "CongestionControl", "StreamControl", "Composition", "CongestionSimulation", "CongestionSimulationEncoder", "WebRTC", "WebRTCTransport", "WebRTCHTTP", "WHIPClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Process runners, ports and temporary directories shared by the test targets (not a product).
        .target(name: "TestSupport", path: "Tests/Support", swiftSettings: swiftSettings),
        // The README's complete example (its code block must equal this file: ExampleTests checks), built by `swift build`.
        .executableTarget(
            name: "StreamToPeer",
            dependencies: ["EncoderSession", "MediaIO", "RTPOut", "CongestionControl", "StreamControl"], path: "Examples/StreamToPeer",
            swiftSettings: swiftSettings),
        // The README's post-composition hook example (its code block must equal this file: ExampleTests checks).
        .executableTarget(
            name: "RenderWithHook",
            dependencies: ["Composition", "EncoderSession", "MediaCore", "MediaIO"], path: "Examples/RenderWithHook",
            swiftSettings: swiftSettings),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "BitstreamTests", dependencies: ["Bitstream", "TestSupport"], exclude: ["Fixtures"], swiftSettings: swiftSettings
        ),
        // The README's WHEP example (Examples/ServeWHEP; ExampleTests checks the README quotes it).
        .executableTarget(
            name: "ServeWHEP",
            dependencies: ["Bitstream", "EncoderSession", "MediaIO", "RTPOut", "WebRTC", "WebRTCHTTP", "WebRTCTransport"],
            path: "Examples/ServeWHEP", swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EncoderSessionTests",
            dependencies: ["EncoderSession", "Bitstream", "CLibAV", "LibAVSupport", "LibAVLog", "TestSupport",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "RTPOutTests", dependencies: ["RTP", "RTPOut", "Bitstream", "NetworkEmulator", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CongestionControlTests",
            dependencies: ["CongestionControl", "StreamControl", "EncoderSession", "MediaCore", "NetworkEmulator"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CongestionSimulationTests", dependencies: ["CongestionSimulation", "CongestionSimulationEncoder", "CongestionControl", "RTP"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebRTCTests", dependencies: ["WebRTC", "TestSupport", "NetworkEmulator"], exclude: ["Fixtures"], swiftSettings: swiftSettings
        ),
        // The WHEP server's tests, and the WHIP client's against that server (the one test target linking both).
        .testTarget(
            name: "WebRTCHTTPTests",
            dependencies: ["WebRTCHTTP", "WHIPClient", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio")],
            swiftSettings: swiftSettings),
        .testTarget(name: "DTLSTests", dependencies: ["DTLS", "RTPOut", "NetworkEmulator", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "WebRTCTransportTests", dependencies: ["WebRTCTransport", "WebRTC", "DTLS", "RTPOut", "MediaCore", "EncoderSession"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "NetworkEmulatorTests", dependencies: ["NetworkEmulator"], swiftSettings: swiftSettings),
        .testTarget(
            name: "MediaIOTests", dependencies: ["MediaIO", "MediaCore", "EncoderSession", "Bitstream", "TestSupport"], swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CompositionTests",
            dependencies: ["Composition", "Timeline", "MediaIO", "CCompositionKernels", "NetworkEmulator", "TestSupport"], swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BitrateAdaptationTests",
            dependencies: ["BitrateAdaptation", "EncoderSession", "MediaIO", "Bitstream", "CLibAV"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "rtencTests",
            dependencies: ["rtenc", "Bitstream", "RTP", "RTPOut", "TestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)
