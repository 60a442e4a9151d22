extension LibAVLog {
    /// libav and libx264 warnings that rtenc's own choices cause on purpose. Each is logged at `debug` with its
    /// reason instead of as a warning an embedder would have to explain (matched on the message text, the only
    /// thing libav's log callback carries).
    package enum ByDesign {
        package static let messages: [(fragment: String, reason: String)] = [
            // EncoderSession/RateController.swift: x264 keeps the ABR target it is opened with, so the session opens
            // it above the target and steers the VBV max rate below it; x264 repeats this on every reconfig.
            ("max bitrate less than average bitrate, assuming CBR",
             "the session's rate controller steers x264's VBV below its ABR ceiling"),
            // The same ABR ceiling at open can exceed the level's MaxBR; the stream itself stays under the hard cap.
            ("> level limit", "x264 is opened with an ABR ceiling above the target; the session caps the real rate"),
            // The controller's tight buffer during a bitrate step; x264 rounds it up to one frame.
            ("VBV buffer size cannot be smaller than one frame", "the rate controller's step buffer, rounded up by x264"),
            // `.automatic` tries VA-API first; the failure is reported through `encoderInUse` (or thrown for
            // `.hardware`), so libav's own line about it adds nothing.
            ("No VA display found for device", "VA-API probe; the reason is in encoderInUse or the thrown error"),
            ("Failed to initialise VAAPI connection", "VA-API probe; the reason is in encoderInUse or the thrown error"),
        ]

        /// Why `line` is expected, or nil for a message worth its libav level.
        package static func reason(for line: String) -> String? {
            messages.first { line.contains($0.fragment) }?.reason
        }
    }
}
