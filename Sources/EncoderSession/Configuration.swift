import Bitstream

extension CompressionSession {
    /// Everything a session needs, as one `Sendable` value.
    ///
    /// Property names follow VideoToolbox's `kVTCompressionPropertyKey_*` in Swift form, with the same meaning and the
    /// same defaults where VideoToolbox documents one. Properties fall in two groups:
    ///
    /// - **Live** (`LiveProperties`): `averageBitRate`, `dataRateLimits`, `maxKeyFrameInterval`,
    ///   `maxKeyFrameIntervalDuration`. Set them between frames with `CompressionSession.update(_:)`; they apply from the
    ///   next frame. With libx264 a bitrate change is an x264 VBV reconfig driven by the session's rate controller
    ///   (`RateController`), live up to 4× the bitrate the encoder was opened with; a larger rise, and any bitrate
    ///   change with VA-API or libx265 (FFmpeg 5.1 passes the bitrate to them only at open), reopens the encoder and
    ///   the next frame is an IDR — the frame's `FrameStats.reopenedEncoder` says so.
    /// - **Fixed** (everything else: codec, size, pixel format, encoder, output format, profile/level, realTime, frame
    ///   reordering, preset, threads, rate control): changing one needs a new encoder; `CompressionSession.reconfigure(_:)` flushes,
    ///   reopens, and starts again with an IDR.
    public struct Configuration: Sendable, Hashable {
        // MARK: Fixed for the life of an encoder

        /// The coding standard to produce: `.h264` (libx264, h264_vaapi) or `.hevc` (libx265, hevc_vaapi).
        public var codec: VideoCodec
        public var width: Int
        public var height: Int
        public var pixelFormat: PixelFormat
        public var encoder: EncoderChoice
        public var outputFormat: OutputFormat
        /// kVTCompressionPropertyKey_ProfileLevel for H.264. Default: High, the lowest level that carries the stream.
        public var profileLevel: ProfileLevel
        /// kVTCompressionPropertyKey_ProfileLevel for HEVC (used when `codec` is `.hevc`). Default: Main, Main tier,
        /// the lowest level that carries the stream.
        public var hevcProfileLevel: HEVCProfileLevel
        /// kVTCompressionPropertyKey_RealTime: no lookahead, no frame threads — each frame's output comes out of the
        /// `encode` call that submitted it. VideoToolbox's default is "unknown"; here `false`.
        public var realTime: Bool
        /// kVTCompressionPropertyKey_AllowFrameReordering (B-frames). VideoToolbox's default is `true`.
        public var allowFrameReordering: Bool
        /// kVTCompressionPropertyKey_ExpectedFrameRate, frames per second; 0 = unknown (30 is assumed for rate control
        /// and the level check).
        public var expectedFrameRate: Double
        /// kVTCompressionPropertyKey_MaxFrameDelayCount: frames the encoder may hold before emitting output;
        /// nil = no limit. 0 behaves like `realTime` for delay (x264 zerolatency).
        public var maxFrameDelayCount: Int?
        /// Software encoder speed/quality trade-off (x264 `preset`); ignored by VA-API.
        public var preset: Preset
        /// Encoder threads. With `realTime` x264 uses sliced threads, so more threads add no delay.
        public var threadCount: Int
        /// Ticks per second of the encoder's timebase (1…Int32.max, libavcodec's time_base); presentation times are
        /// converted to it, and "strictly increasing" is decided in its ticks.
        public var timescale: Int64
        /// Who drives the encoder's rate control: the session's controller with hard limits (default), or the
        /// encoder's own ABR + VBV with live changes passed straight through (a research baseline).
        public var rateControl: RateControl

        // MARK: Live

        public var live: LiveProperties

        public init(
            width: Int, height: Int, pixelFormat: PixelFormat = .nv12, encoder: EncoderChoice = .automatic,
            outputFormat: OutputFormat = .annexB, profileLevel: ProfileLevel = .init(profile: .high, level: nil),
            realTime: Bool = false, allowFrameReordering: Bool = true, expectedFrameRate: Double = 0,
            maxFrameDelayCount: Int? = nil, preset: Preset = .veryfast, threadCount: Int = 2, timescale: Int64 = 90_000,
            rateControl: RateControl = .session, live: LiveProperties? = nil, codec: VideoCodec = .h264,
            hevcProfileLevel: HEVCProfileLevel = .init()
        ) {
            self.codec = codec
            self.hevcProfileLevel = hevcProfileLevel
            self.width = width
            self.height = height
            self.pixelFormat = pixelFormat
            self.encoder = encoder
            self.outputFormat = outputFormat
            self.profileLevel = profileLevel
            self.realTime = realTime
            self.allowFrameReordering = allowFrameReordering
            self.expectedFrameRate = expectedFrameRate
            self.maxFrameDelayCount = maxFrameDelayCount
            self.preset = preset
            self.threadCount = threadCount
            self.timescale = timescale
            self.rateControl = rateControl
            self.live =
                live
                ?? LiveProperties(
                    averageBitRate: Self.defaultBitRate(width: width, height: height, frameRate: expectedFrameRate))
        }

        /// Exactly what WebRTC's RTCVideoEncoderH264 sets on its VTCompressionSession: realTime on, no frame
        /// reordering, the given average bitrate, a hard limit of 1.5 × average / 8 bytes per 1 s, a keyframe at least
        /// every 7200 frames or 240 s.
        ///
        /// The level defaults to the lowest that carries the stream (`resolvedLevel`): 3 for 640×360, 3.1 for 720p30,
        /// 4 for 1080p30 at WebRTC's bitrates. WebRTC itself negotiates it in the SDP; pass one to pin it.
        public static func realTimeCommunication(
            width: Int, height: Int, averageBitRate: Int, pixelFormat: PixelFormat = .nv12,
            profileLevel: ProfileLevel = .init(profile: .constrainedBaseline, level: nil),
            encoder: EncoderChoice = .automatic, expectedFrameRate: Double = 30, codec: VideoCodec = .h264,
            hevcProfileLevel: HEVCProfileLevel = .init()
        ) -> Configuration {
            Configuration(
                width: width, height: height, pixelFormat: pixelFormat, encoder: encoder, outputFormat: .annexB,
                profileLevel: profileLevel, realTime: true, allowFrameReordering: false,
                expectedFrameRate: expectedFrameRate, maxFrameDelayCount: 0, preset: .veryfast,
                live: .realTimeCommunication(averageBitRate: averageBitRate), codec: codec,
                hevcProfileLevel: hevcProfileLevel)
        }

        /// A bitrate that gives reasonable quality when the caller names none: 0.1 bit per pixel per frame.
        static func defaultBitRate(width: Int, height: Int, frameRate: Double) -> Int {
            let fps = frameRate > 0 ? frameRate : 30
            return max(100_000, Int(Double(max(width, 1) * max(height, 1)) * fps * 0.1))
        }

        /// The level the encoder is opened with: `profileLevel.level`, or when that is nil the lowest level whose
        /// Table A-1 limits carry the size, frame rate and peak bit rate (the highest of the average and the
        /// data-rate limits). x264's own guess rounds up (3.2 for 720p30 at 2 Mb/s, where 3.1 carries it), which
        /// makes the SDP's profile-level-id claim more than the stream needs. nil when no level carries the stream
        /// (the encoder then writes its own).
        public var resolvedLevel: H264Level? {
            if let level = profileLevel.level { return level }
            return H264Level.lowest(
                width: width, height: height, fps: effectiveFrameRate, bitRate: Int(peakBitRate.rounded(.up)),
                profile: profileLevel.profile, includeLevel1b: false)
        }

        /// The HEVC level the encoder is opened with: `hevcProfileLevel.level`, or the lowest whose Table A.8/A.9
        /// limits carry the size, frame rate and peak bit rate; nil when none does (libx265 then writes its own).
        public var resolvedHEVCLevel: HEVC.Level? {
            if let level = hevcProfileLevel.level { return level }
            return HEVC.Level.lowest(
                width: HEVC.Level.codedSide(width), height: HEVC.Level.codedSide(height), fps: effectiveFrameRate,
                bitRate: Int(peakBitRate.rounded(.up)), profile: hevcProfileLevel.profile)
        }

        /// The highest of the average and the data-rate limits, bits/s: what a level must carry.
        var peakBitRate: Double {
            live.dataRateLimits.reduce(Double(live.averageBitRate)) { max($0, $1.bitsPerSecond) }
        }

        /// The frame rate used for rate control and level checks.
        var effectiveFrameRate: Double { expectedFrameRate > 0 ? expectedFrameRate : 30 }

        /// True when `other` differs from `self` in a property that needs a new encoder.
        public func needsNewEncoder(comparedTo other: Configuration) -> Bool {
            var candidate = self
            candidate.live = other.live
            return candidate != other
        }
    }
}

extension CompressionSession {
    /// The properties that apply from the next frame without a new encoder.
    public struct LiveProperties: Sendable, Hashable {
        /// kVTCompressionPropertyKey_AverageBitRate, bits per second; must be > 0.
        public var averageBitRate: Int
        /// kVTCompressionPropertyKey_DataRateLimits: hard limits; no window of `seconds` ever holds more than `bytes`.
        public var dataRateLimits: [DataRateLimit]
        /// kVTCompressionPropertyKey_MaxKeyFrameInterval, frames from one keyframe to the next; 0 = no limit.
        public var maxKeyFrameInterval: Int
        /// kVTCompressionPropertyKey_MaxKeyFrameIntervalDuration, seconds; 0 = no limit. Whichever limit comes first
        /// wins.
        public var maxKeyFrameIntervalDuration: Double

        public init(
            averageBitRate: Int, dataRateLimits: [DataRateLimit] = [], maxKeyFrameInterval: Int = 0,
            maxKeyFrameIntervalDuration: Double = 0
        ) {
            self.averageBitRate = averageBitRate
            self.dataRateLimits = dataRateLimits
            self.maxKeyFrameInterval = maxKeyFrameInterval
            self.maxKeyFrameIntervalDuration = maxKeyFrameIntervalDuration
        }

        /// Sets the average and scales every data-rate limit by the same factor, so a cap of 1.5× the average stays
        /// 1.5× the new one. A non-positive rate is stored as given (and refused by validation), limits untouched.
        public mutating func setAverageBitRateKeepingLimitRatios(_ bitsPerSecond: Int) {
            if averageBitRate > 0, bitsPerSecond > 0 {
                let factor = Double(bitsPerSecond) / Double(averageBitRate)
                dataRateLimits = dataRateLimits.map { limit in
                    DataRateLimit(bytes: max(1, Int((Double(limit.bytes) * factor).rounded())), seconds: limit.seconds)
                }
            }
            averageBitRate = bitsPerSecond
        }

        /// WebRTC's live settings: `[(1.5 × averageBitRate / 8 bytes, 1 s)]`, 7200 frames, 240 s.
        public static func realTimeCommunication(averageBitRate: Int) -> LiveProperties {
            LiveProperties(
                averageBitRate: averageBitRate,
                dataRateLimits: [DataRateLimit(bytes: Int(Double(averageBitRate) * 1.5 / 8), seconds: 1)],
                maxKeyFrameInterval: 7200, maxKeyFrameIntervalDuration: 240)
        }
    }
}

/// One kVTCompressionPropertyKey_DataRateLimits pair: at most `bytes` in any window of `seconds`.
public struct DataRateLimit: Sendable, Hashable {
    public var bytes: Int
    public var seconds: Double

    public init(bytes: Int, seconds: Double) {
        self.bytes = bytes
        self.seconds = seconds
    }

    /// The limit as a rate, bits per second.
    public var bitsPerSecond: Double { Double(bytes) * 8 / seconds }
}

/// Which encoder to use (kVTVideoEncoderSpecification_EnableHardwareAcceleratedVideoEncoder and friends).
public enum EncoderChoice: Sendable, Hashable {
    /// VA-API on the default render node if it works, otherwise the software encoder (libx264, libx265);
    /// `CompressionSession.encoderInUse` says why.
    case automatic
    /// libx264 for H.264, libx265 for HEVC.
    case software
    /// VA-API (h264_vaapi, hevc_vaapi) on the given DRM render node; fails with `.hardwareUnavailable` if it cannot
    /// be used.
    case hardware(device: String = EncoderChoice.defaultRenderNode)

    public static let defaultRenderNode = "/dev/dri/renderD128"
}

extension CompressionSession {
    /// How encoded frames are framed.
    public enum OutputFormat: Sendable, Hashable {
        /// Start codes, SPS/PPS in-band before every IDR: what an RTP payloader wants.
        case annexB
        /// 4-byte big-endian lengths, SPS/PPS out of band in an avcC record (a VideoToolbox-style sample).
        case avcc
    }
}

extension CompressionSession {
    /// x264 presets, fastest first (libx265 has the same names).
    public enum Preset: String, Sendable, Hashable, CaseIterable {
        // placebo because x264 has it (the CLI lists x264's presets); it is far too slow for real time.
        case ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo
    }
}
