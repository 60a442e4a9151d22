/// A per-frame byte budget as x264 can obey it: a VBV for one frame.
///
/// x264 has no "largest frame" parameter, and a frame cannot be encoded twice (the first try is already in its
/// reference state), so the cap has to go in before the frame: x264 plans each frame within its VBV buffer's fill
/// (ratecontrol.c, `clip_qscale`: a frame predicted bigger than the fill gets a higher QP; `update_vbv_plan` clamps
/// the fill to the buffer size, also right after a reconfig) and re-checks row by row (`x264_ratecontrol_mb`: the
/// QP rises until the frame's predicted end fits `buffer_fill − buffer_rate × max_frame_error`). So a buffer of the
/// budget caps the frame at about the budget. The buffer must hold a frame at the max rate (x264 raises it with a
/// warning otherwise), so the max rate comes down to budget × frame rate with it; both apply to this frame only —
/// the steered VBV is put back for the next, and the buffer refills from where this frame left it.
///
/// Where the steered VBV is already tighter (a budget above its buffer) it is left alone. libx264.c hands x264
/// whole kilobits (rc_buffer_size / 1000, rounded down), so the buffer is the budget rounded down to a kilobit (up to
/// 124 bytes under it), and a budget under 125 bytes cannot be expressed: the buffer is then 1 kbit.
extension RateSettings {
    /// The smallest buffer x264 can be given through libavcodec, bits.
    static let smallestFrameBuffer = 1000

    /// These settings with the VBV narrowed so that one frame of at most `bytes` fits, at `framesPerSecond`.
    func cappingFrame(toBytes bytes: Int, framesPerSecond: Double) -> RateSettings {
        let buffer = max(Self.smallestFrameBuffer, bytes * 8 / 1000 * 1000)
        guard buffer < bufferSize else { return self }
        // x264's buffer_rate (max rate ÷ frame rate) then equals the buffer: a single-frame VBV.
        let maxRate = min(maxBitRate, Int(Double(buffer) * max(framesPerSecond, 1)))
        return RateSettings(averageBitRate: averageBitRate, maxBitRate: maxRate, bufferSize: buffer)
    }
}
