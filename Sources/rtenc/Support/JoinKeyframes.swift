import ArgumentParser

/// Keyframes for players that cannot ask for one.
///
/// The real-time configuration sends an IDR every 7200 frames / 240 s and otherwise only when a receiver asks
/// (PLI/FIR). ffplay and VLC reading our SDP never ask, and ffplay's receiver reports go to the SDP's own address
/// (itself), not to us; such a player started after the stream would wait up to 240 s for a picture. So while no
/// receiver reports, the stream sends an IDR (SPS/PPS in band) every `interval` seconds and a player joining at
/// any moment decodes within about that long. As soon as RTCP from the peer arrives, the configured GOP and
/// PLI-driven IDRs are all there is again, exactly as for a peer that sends feedback from its first packet.
///
/// Pure: the stream loop feeds it frame times (seconds on the input's clock, which the loop keeps in real time)
/// and the sender's count of RTCP packets from the peer; it answers whether the next frame must be an IDR.
struct JoinKeyframes {
    /// A receiver that reported once and then fell silent for this long is taken as gone, and the periodic IDRs
    /// resume for whoever plays next. Above RFC 3550's slowest regular reporting (a 5 s minimum interval,
    /// randomized up to 1.5×, §6.3.1, §6.2), so a receiver reporting at that pace stays counted.
    static let receiverTimeout = 10.0

    enum Mode: String, Sendable {
        /// Nobody reports: an IDR every `interval` seconds.
        case joining
        /// A receiver reported within `receiverTimeout`: configured GOP and PLI/FIR only.
        case receiverReporting
        /// `--join-keyframes off`.
        case off
    }

    /// Seconds between IDRs while no receiver reports; nil = off.
    let interval: Double?
    private var lastKeyframe: Double?
    private var rtcpPacketsSeen = 0
    private var lastReport: Double?

    init(interval: Double?) {
        self.interval = interval
    }

    /// What applies at `time` (the time of the last frame asked about).
    private(set) var mode: Mode = .joining

    /// Before encoding the frame at `time`: whether to force an IDR. `rtcpPacketsReceived` is the sender's running
    /// count of RTCP packets from the peer (authenticated and parsed); a rise means a receiver reported.
    mutating func forceKeyframe(at time: Double, rtcpPacketsReceived: Int) -> Bool {
        if rtcpPacketsReceived > rtcpPacketsSeen {
            rtcpPacketsSeen = rtcpPacketsReceived
            lastReport = time
        }
        guard let interval else {
            mode = .off
            return false
        }
        if let lastReport, time - lastReport < Self.receiverTimeout {
            mode = .receiverReporting
            return false
        }
        mode = .joining
        guard let lastKeyframe else { return false }  // the stream's first frame is an IDR anyway
        return time - lastKeyframe >= interval - Self.tolerance
    }

    /// An IDR left at `time`, whatever asked for it (the first frame, PLI, --force-idr, the GOP, this policy).
    mutating func keyframeSent(at time: Double) {
        lastKeyframe = max(lastKeyframe ?? time, time)
    }

    /// Frame times are rationals (1001/30000 s…) turned into doubles: an interval of exactly 30 frames must not
    /// become 31 because 30 × (1/30) came out a hair below 1.
    private static let tolerance = 1e-6
}

/// `--join-keyframes SECONDS|off`.
struct JoinKeyframesArgument: Equatable, CustomStringConvertible {
    /// Seconds; nil = off.
    let interval: Double?

    /// Half a second: a late ffmpeg/ffplay needs its own start-up (0.2–0.8 s measured on a busy 2-core machine)
    /// plus 7 decoded frames to finish probing (0.23 s at 30 fps) on top of the wait for the IDR; with 1 s its
    /// first picture came after 1.2–2.0 s, with 0.5 s after 1.1–1.5 s.
    static let defaultValue = JoinKeyframesArgument(interval: 0.5)
    /// An IDR per frame is already what a shorter interval would give; above an hour the 240 s GOP comes first.
    static let range = 0.1 ... 3600.0

    init(interval: Double?) {
        self.interval = interval
    }

    /// `off`, or seconds in `range`.
    static func parse(_ argument: String) throws(OptionValueError) -> JoinKeyframesArgument {
        if argument == "off" { return JoinKeyframesArgument(interval: nil) }
        guard let seconds = Double(argument), range.contains(seconds) else {
            throw OptionValueError("'\(argument)' is not an interval", expected: "expected 0.1…3600 seconds, or off")
        }
        return JoinKeyframesArgument(interval: seconds)
    }

    var description: String {
        guard let interval else { return "off" }
        return interval == interval.rounded() ? String(Int(interval)) : String(interval)
    }
}
