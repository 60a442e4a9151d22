import Bitstream

/// Checks on caller input, done before anything reaches libav: bad input becomes a typed error, never a crash or an
/// AVERROR from deep inside an encoder.
enum Limits {
    /// Largest width or height accepted. Levels up to 6.2 allow at most sqrt(8 × 139 264) = 1055 MBs = 16 880 luma
    /// samples on a side (A.3.1 f); 8192 covers every level-5.2 stream and keeps frame buffers bounded.
    static let maxDimension = 8192
    /// Highest bitrate accepted, bits/s (Level 5.2 High allows 300 Mb/s; 1 Gb/s leaves room for level-less use).
    static let maxBitRate = 1_000_000_000
    /// DataRateLimits windows: VideoToolbox's are seconds; sub-millisecond or hour-long windows are input errors.
    static let minDataRateWindow = 0.001
    static let maxDataRateWindow = 3600.0
    static let maxThreads = 64
    static let maxFrameRate = 1000.0
}

extension Configuration {
    func validate() throws(EncoderSessionError) {
        guard width > 0, height > 0, width <= Limits.maxDimension, height <= Limits.maxDimension else {
            throw .make(.invalidConfiguration,
                "size \(width)×\(height) outside 1…\(Limits.maxDimension) on each side")
        }
        // 4:2:0 chroma is subsampled 2:1 both ways and x264/VA-API need whole chroma samples.
        guard width % 2 == 0, height % 2 == 0 else {
            throw .make(.invalidConfiguration, "size \(width)×\(height): 4:2:0 (\(pixelFormat)) needs even width and height")
        }
        guard (1...Limits.maxThreads).contains(threadCount) else {
            throw .make(.invalidConfiguration, "threadCount \(threadCount) outside 1…\(Limits.maxThreads)")
        }
        guard expectedFrameRate.isFinite, expectedFrameRate >= 0, expectedFrameRate <= Limits.maxFrameRate else {
            throw .make(.invalidConfiguration, "expectedFrameRate \(expectedFrameRate) outside 0…\(Limits.maxFrameRate)")
        }
        guard timescale > 0, timescale <= Int64(Int32.max) else {
            throw .make(.invalidConfiguration, "timescale \(timescale) outside 1…\(Int32.max)")
        }
        if let delay = maxFrameDelayCount, delay < 0 {
            throw .make(.invalidConfiguration, "maxFrameDelayCount \(delay) must be ≥ 0")
        }
        if case .hardware(let device) = encoder, device.isEmpty {
            throw .make(.invalidConfiguration, "hardware device path is empty")
        }
        try live.validate()
        switch codec {
        case .h264: try checkProfileLevel()
        case .hevc: try checkHEVCProfileLevel()
        }
    }

    /// The profile must be one the encoders produce, and a requested level must carry the size, frame rate and
    /// bitrate (H.264 Table A-1); otherwise the error names the lowest level that would.
    func checkProfileLevel() throws(EncoderSessionError) {
        let profile = profileLevel.profile
        guard ProfileLevel.supportedProfiles.contains(profile) else {
            throw .make(.invalidConfiguration,
                "profile \(profile.rawValue) is not one libx264/VA-API produce here (8-bit 4:2:0)")
        }
        guard let level = profileLevel.level else { return }
        let rate = effectiveFrameRate
        let bitRate = live.averageBitRate
        let violations = level.violations(width: width, height: height, fps: rate, bitRate: bitRate, profile: profile)
        guard !violations.isEmpty else { return }
        let lowest = H264Level.lowest(width: width, height: height, fps: rate, bitRate: bitRate, profile: profile)
        let stream = "\(width)×\(height) at \(rate) fps and \(bitRate) b/s in \(profile.rawValue)"
        let broken = violations.map(\.description).joined(separator: ", ")
        throw EncoderSessionError(
            code: .levelTooLow,
            reason: lowest.map {
                "level \(level.name) cannot carry \(stream) (Table A-1: \(broken)); "
                    + "the lowest level that can is \($0.name)"
            }
                ?? "level \(level.name) cannot carry \(stream) (Table A-1: \(broken)), and no H.264 level can")
    }
}

extension Configuration {
    /// HEVC: the profile must be one libx265 produces here, and a requested level must carry the coded size, frame
    /// rate and bitrate (Tables A.8/A.9, Main tier); otherwise the error names the lowest level that would. Checked
    /// before libx265 sees it, which only warns and lowers its VBV.
    func checkHEVCProfileLevel() throws(EncoderSessionError) {
        let profile = hevcProfileLevel.profile
        guard HEVCProfileLevel.supportedProfiles.contains(profile) else {
            throw .make(.invalidConfiguration, "HEVC profile \(profile.name) is not one libx265 produces here (main, main10)")
        }
        guard let level = hevcProfileLevel.level else { return }
        let rate = effectiveFrameRate
        let bitRate = live.averageBitRate
        let (codedWidth, codedHeight) = (HEVC.Level.codedSide(width), HEVC.Level.codedSide(height))
        let violations = level.violations(
            width: codedWidth, height: codedHeight, fps: rate, bitRate: bitRate, profile: profile)
        guard !violations.isEmpty else { return }
        let lowest = HEVC.Level.lowest(
            width: codedWidth, height: codedHeight, fps: rate, bitRate: bitRate, profile: profile)
        let stream = "\(width)×\(height) at \(rate) fps and \(bitRate) b/s in HEVC \(profile.name)"
        let table = "Tables A.8/A.9, Main tier: \(violations.map(\.description).joined(separator: ", "))"
        throw EncoderSessionError(
            code: .levelTooLow,
            reason: lowest.map { "level \(level.name) cannot carry \(stream) (\(table)); the lowest level that can is \($0.name)" }
                ?? "level \(level.name) cannot carry \(stream) (\(table)), and no HEVC level can")
    }
}

extension LiveProperties {
    func validate() throws(EncoderSessionError) {
        guard averageBitRate > 0, averageBitRate <= Limits.maxBitRate else {
            throw .make(.invalidConfiguration, "averageBitRate \(averageBitRate) outside 1…\(Limits.maxBitRate) b/s")
        }
        for limit in dataRateLimits {
            guard limit.bytes > 0, limit.seconds.isFinite, limit.seconds > 0 else {
                throw .make(.invalidConfiguration,
                    "dataRateLimits entry (\(limit.bytes) bytes, \(limit.seconds) s) must be > 0")
            }
            // Bounded so the rate derived from it (bytes × 8 / seconds) stays a sane Int: a window of 1 ms … 1 h, and
            // no more bytes than the largest bit rate sends in it.
            guard (Limits.minDataRateWindow...Limits.maxDataRateWindow).contains(limit.seconds),
                  Double(limit.bytes) <= Double(Limits.maxBitRate) / 8 * limit.seconds else {
                throw .make(.invalidConfiguration, """
                    dataRateLimits entry (\(limit.bytes) bytes, \(limit.seconds) s) outside a window of \
                    \(Limits.minDataRateWindow)…\(Limits.maxDataRateWindow) s at up to \(Limits.maxBitRate) b/s
                    """)
            }
        }
        guard maxKeyFrameInterval >= 0 else {
            throw .make(.invalidConfiguration, "maxKeyFrameInterval \(maxKeyFrameInterval) must be ≥ 0")
        }
        guard maxKeyFrameIntervalDuration.isFinite, maxKeyFrameIntervalDuration >= 0 else {
            throw .make(.invalidConfiguration, "maxKeyFrameIntervalDuration \(maxKeyFrameIntervalDuration) must be ≥ 0")
        }
    }
}

extension PixelBuffer {
    /// The buffer matches the session's format and size, and every row of every plane lies inside its bytes.
    func validate(against configuration: Configuration) throws(EncoderSessionError) {
        do {
            try checkLayout(format: configuration.pixelFormat, width: configuration.width, height: configuration.height)
        } catch {
            throw .make(.invalidPixelBuffer, error.description)
        }
    }
}
