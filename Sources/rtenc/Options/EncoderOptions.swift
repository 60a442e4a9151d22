import ArgumentParser
import Bitstream
import EncoderSession

/// The encoder options `stream` and `encode` share. Defaults are WebRTC's real-time configuration: 2 Mb/s average,
/// a hard cap of 1.5 × that per second, a keyframe at least every 7200 frames or 240 s, no B-frames, zerolatency.
struct EncoderOptions: ParsableArguments {
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Average bit rate, 10k…100M (2M, 500k, 2000000).", default: Self.defaultBitRate),
            transform: BitRate.parser(in: 10_000...100_000_000))
    var bitrate = Self.defaultBitRate

    @Option(parsing: .unconditional,
            help: ArgumentHelp(
                "Hard data-rate cap as a multiple of --bitrate, over any 1 s window: 1…10, or 0 to turn the cap off.",
                default: 1.5),
            transform: OptionNumber.decimal(expected: "0 (no cap) or 1…10") { $0 == 0 || (1...10).contains($0) })
    var maxRateRatio = 1.5

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Maximum keyframe interval in frames (0: no frame limit).", default: 7200),
            transform: OptionNumber.integer(0...Int.max, unit: "frames"))
    var keyint = 7200

    @Option(parsing: .unconditional,
            help: ArgumentHelp(
                "Maximum keyframe interval in seconds (0: no time limit); whichever limit comes first wins.", default: 240),
            transform: OptionNumber.decimal(expected: "0 or more seconds") { $0 >= 0 })
    var keyintSeconds = 240.0

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Force an IDR on these frame numbers (0-based, comma separated).", valueName: "n,n,…"),
            transform: FrameList.parse)
    var forceIdr: FrameList?

    @Option(help: "Codec: h264 or avc (libx264, h264_vaapi), hevc or h265 (libx265, hevc_vaapi).")
    var codec = CodecArgument.h264

    @Option(help: ArgumentHelp(
        "Profile. H.264: baseline, constrained-baseline (default), main, high, constrained-high; "
            + "HEVC: main (default), main10 (8-bit input widened to 10 bits)."))
    var profile: ProfileArgument?

    @Option(help: ArgumentHelp(
        "Level. H.264: \(LevelArgument.names.joined(separator: ", ")); HEVC: "
            + "\(HEVC.Level.allCases.map(\.name).joined(separator: ", ")); 3.1 may also be written 31, "
            + "3 as 3.0 or 30. Default: the lowest that carries the stream."),
            transform: LevelArgument.parse)
    var level: H264Level?

    @Option(help: "Encoder: auto (VA-API if usable, else libx264/libx265), software, vaapi.")
    var encoder = EncoderArgument.auto

    @Option(help: "VA-API render node for --encoder vaapi (auto tries /dev/dri/renderD128).")
    var device = EncoderChoice.defaultRenderNode

    @Option(help: "libx264/libx265 preset.")
    var preset = CompressionSession.Preset.veryfast

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Encoder threads, 1…16 (libx264 sliced threads: no extra delay).", default: 2),
            transform: OptionNumber.integer(1...16))
    var threads = 2

    static let defaultBitRate = BitRate(bitsPerSecond: 2_000_000)

    /// A profile or level the codec does not have is a usage error, named with what it does have.
    func validate() throws {
        switch codec.codec {
        case .h264:
            if let profile, profile.h264Profile == nil {
                throw ValidationError("--profile \(profile.rawValue) is an HEVC profile; with --codec h264 use one of "
                    + "baseline, constrained-baseline, main, high, constrained-high")
            }
        case .hevc:
            if let profile, profile.hevcProfile == nil {
                throw ValidationError("--profile \(profile.rawValue) is not an HEVC profile; with --codec hevc use main or main10")
            }
            if let level, LevelArgument.hevc(level) == nil {
                throw ValidationError("--level \(level.name) is not an HEVC level; with --codec hevc use one of "
                    + HEVC.Level.allCases.map(\.name).joined(separator: ", "))
            }
        }
    }

    enum EncoderArgument: String, ExpressibleByArgument, CaseIterable {
        case auto, software, vaapi
    }

    /// The live (bitrate-dependent) properties for `bitsPerSecond`: the cap follows the bitrate, as WebRTC re-sets
    /// kVTCompressionPropertyKey_DataRateLimits whenever it changes the average.
    func liveProperties(bitsPerSecond: Int) -> CompressionSession.LiveProperties {
        CompressionSession.LiveProperties(
            averageBitRate: bitsPerSecond,
            dataRateLimits: maxRateRatio > 0
                ? [DataRateLimit(bytes: Int(Double(bitsPerSecond) * maxRateRatio / 8), seconds: 1)] : [],
            maxKeyFrameInterval: keyint, maxKeyFrameIntervalDuration: keyintSeconds)
    }

    func configuration(width: Int, height: Int, frameRate: Double, pixelFormat: PixelFormat) -> CompressionSession.Configuration {
        let choice: EncoderChoice = switch encoder {
        case .auto: .automatic
        case .software: .software
        case .vaapi: .hardware(device: device)
        }
        // No --level: the session picks the lowest level whose Table A-1 limits carry the size, rate and capped bit
        // rate (`Configuration.resolvedLevel`; x264's own guess rounds up), so the SDP's profile-level-id is tight.
        // A profile or level of the other codec was refused by `validate`; the other codec's keeps its default.
        let h264 = ProfileLevel(
            profile: profile?.h264Profile ?? .constrainedBaseline, level: codec.codec == .h264 ? level : nil)
        let hevc = HEVCProfileLevel(profile: profile?.hevcProfile ?? .main, level: level.flatMap(LevelArgument.hevc))
        var configuration = CompressionSession.Configuration.realTimeCommunication(
            width: width, height: height, averageBitRate: bitrate.bitsPerSecond, pixelFormat: pixelFormat,
            profileLevel: h264, encoder: choice, expectedFrameRate: frameRate, codec: codec.codec,
            hevcProfileLevel: hevc)
        configuration.preset = preset
        configuration.threadCount = threads
        configuration.live = liveProperties(bitsPerSecond: bitrate.bitsPerSecond)
        return configuration
    }
}

extension CompressionSession.Preset: ExpressibleByArgument {}
