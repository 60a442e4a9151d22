import ArgumentParser
import Bitstream
import EncoderSession

/// The encoder options `stream` and `encode` share. Defaults are WebRTC's real-time configuration: 2 Mb/s average,
/// a hard cap of 1.5 × that per second, a keyframe at least every 7200 frames or 240 s, no B-frames, zerolatency.
struct EncoderOptions: ParsableArguments {
    @Option(help: "Average bit rate (2M, 500k, 2000000).")
    var bitrate = BitRate(bitsPerSecond: 2_000_000)

    @Option(help: "Hard data-rate cap as a multiple of --bitrate, over any 1 s window (0 turns the cap off).")
    var maxRateRatio = 1.5

    @Option(help: "Maximum keyframe interval in frames (0: no frame limit).")
    var keyint = 7200

    @Option(help: "Maximum keyframe interval in seconds (0: no time limit); whichever limit comes first wins.")
    var keyintSeconds = 240.0

    @Option(help: "Force an IDR on these frame numbers (0-based, comma separated).")
    var forceIdr: FrameList?

    @Option(help: "H.264 profile: \(ProfileArgument.allCases.map(\.rawValue).joined(separator: "|")).")
    var profile = ProfileArgument.constrainedBaseline

    @Option(help: "H.264 level (3.0, 3.1, 4, 5.1, …); default: the lowest that carries the stream.")
    var level: H264Level?

    @Option(help: "Encoder: auto (VA-API if usable, else libx264) | software | vaapi.")
    var encoder = EncoderArgument.auto

    @Option(help: "VA-API render node for --encoder vaapi (auto tries /dev/dri/renderD128).")
    var device = EncoderChoice.defaultRenderNode

    @Option(help: "libx264 preset (ultrafast … veryslow).")
    var preset = EncoderSession.Preset.veryfast

    @Option(help: "Encoder threads (libx264 sliced threads: no extra delay).")
    var threads = 2

    enum EncoderArgument: String, ExpressibleByArgument, CaseIterable {
        case auto, software, vaapi
    }

    func validate() throws {
        guard maxRateRatio == 0 || (1...10).contains(maxRateRatio) else {
            throw ValidationError("--max-rate-ratio must be 0 (no cap) or 1…10, not \(maxRateRatio)")
        }
        guard (10_000...100_000_000).contains(bitrate.bitsPerSecond) else {
            throw ValidationError("--bitrate must be 10k…100M")
        }
        guard keyint >= 0 else { throw ValidationError("--keyint must be 0 or more") }
        guard keyintSeconds >= 0, keyintSeconds.isFinite else { throw ValidationError("--keyint-seconds must be 0 or more") }
        guard (1...16).contains(threads) else { throw ValidationError("--threads must be 1…16") }
    }

    /// The live (bitrate-dependent) properties for `bitsPerSecond`: the cap follows the bitrate, as WebRTC re-sets
    /// kVTCompressionPropertyKey_DataRateLimits whenever it changes the average.
    func liveProperties(bitsPerSecond: Int) -> EncoderSession.LiveProperties {
        EncoderSession.LiveProperties(
            averageBitRate: bitsPerSecond,
            dataRateLimits: maxRateRatio > 0
                ? [DataRateLimit(bytes: Int(Double(bitsPerSecond) * maxRateRatio / 8), seconds: 1)] : [],
            maxKeyFrameInterval: keyint, maxKeyFrameIntervalDuration: keyintSeconds)
    }

    func configuration(width: Int, height: Int, frameRate: Double, pixelFormat: PixelFormat) -> EncoderSession.Configuration {
        let choice: EncoderChoice = switch encoder {
        case .auto: .automatic
        case .software: .software
        case .vaapi: .hardware(device: device)
        }
        // No --level: the lowest level whose Table A-1 limits carry the size, rate and capped bit rate (x264's own
        // guess rounds up: it picks 3.2 for 720p30, where 3.1 is exact), so the SDP's profile-level-id is tight.
        let peakBitRate = Int(Double(bitrate.bitsPerSecond) * max(maxRateRatio, 1))
        let chosenLevel = level ?? H264Level.lowest(
            width: width, height: height, fps: frameRate, bitRate: peakBitRate, profile: profile.profile,
            includeLevel1b: false)
        var configuration = EncoderSession.Configuration.realTimeCommunication(
            width: width, height: height, averageBitRate: bitrate.bitsPerSecond, pixelFormat: pixelFormat,
            profileLevel: ProfileLevel(profile: profile.profile, level: chosenLevel), encoder: choice,
            expectedFrameRate: frameRate)
        configuration.preset = preset
        configuration.threadCount = threads
        configuration.live = liveProperties(bitsPerSecond: bitrate.bitsPerSecond)
        return configuration
    }
}

extension EncoderSession.Preset: ExpressibleByArgument {}
