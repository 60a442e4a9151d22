extension CompressionSession {
    /// Who turns the live bitrate and data-rate limits into the encoder's rate control. Fixed for the life of an
    /// encoder (it decides how x264 is opened).
    public enum RateControl: Sendable, Hashable {
        /// The session's controller (`RateController`): x264 opened far above the target with its VBV maxrate as
        /// the actuator, bitrate steps that settle within about a second, and `dataRateLimits` enforced as hard
        /// limits (a frame that would overflow a window is dropped). The default, and what RTC apps want.
        case session
        /// The encoder alone, as a plain libavcodec user sets it up: ABR at `averageBitRate`, VBV maxrate at the
        /// tightest data-rate limit's rate (1.5 × average without limits) with a buffer of that limit's window
        /// (1 s without limits), and every live change passed straight through (x264_encoder_reconfig; a VA-API
        /// change still reopens). Nothing is dropped: `dataRateLimits` only shape the VBV, they are not enforced.
        ///
        /// A baseline for bitrate-adaptation research: x264 keeps the ABR target it was opened with ("We don't
        /// support changing the ABR bitrate right now", ratecontrol.c), so after a step down the output sits at the
        /// VBV maxrate and after a step up at the opening target — see `rtenc bench adapt`'s `x264` policy.
        case encoderVBV
    }
}
