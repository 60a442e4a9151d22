import EncoderSession

/// What the harness records for each submitted frame: the plain numbers every metric and plot is computed from.
public struct FrameRecord: Sendable, Hashable {
    public var index: Int
    /// Presentation time, seconds from the start of the run.
    public var time: Double
    /// The scenario's target at `time`, bits per second.
    public var target: Int
    /// The averageBitRate the policy had given the session for this frame (`FrameStats.targetBitRate`).
    public var encoderBitRate: Int
    /// The VBV max rate the session's rate controller gave x264 for this frame, when it drives one.
    public var encoderMaxBitRate: Int?
    /// Bytes delivered; 0 when dropped.
    public var bytes: Int
    /// SliceQPY of the first slice; nil when dropped.
    public var qp: Int?
    public var isKeyFrame: Bool
    /// Why the session dropped the frame; nil when it was delivered.
    public var dropReason: DropReason?

    public init(
        index: Int, time: Double, target: Int, encoderBitRate: Int? = nil, encoderMaxBitRate: Int? = nil, bytes: Int,
        qp: Int? = nil, isKeyFrame: Bool = false, dropReason: DropReason? = nil
    ) {
        self.index = index
        self.time = time
        self.target = target
        self.encoderBitRate = encoderBitRate ?? target
        self.encoderMaxBitRate = encoderMaxBitRate
        self.bytes = bytes
        self.qp = qp
        self.isKeyFrame = isKeyFrame
        self.dropReason = dropReason
    }

    public var isDropped: Bool { dropReason != nil }
}

extension FrameRecord {
    /// Header of the per-frame CSV (`csvRow`): times in seconds, rates in bits per second, sizes in bytes; empty
    /// fields for "none".
    public static let csvHeader = "index,time_s,target_bps,encoder_bps,encoder_maxrate_bps,bytes,qp,keyframe,dropped,drop_reason"

    public var csvRow: String {
        let fields: [String] = [
            String(index), String(time), String(target), String(encoderBitRate),
            encoderMaxBitRate.map(String.init) ?? "", String(bytes), qp.map(String.init) ?? "",
            isKeyFrame ? "1" : "0", isDropped ? "1" : "0", dropReason.map(Self.name(of:)) ?? "",
        ]
        return fields.joined(separator: ",")
    }

    /// Stable names for the CSV and JSON (the enum's case names).
    public static func name(of reason: DropReason) -> String {
        switch reason {
        case .dataRateLimit: "dataRateLimit"
        case .dataRateLimitAfterEncoding: "dataRateLimitAfterEncoding"
        case .awaitingKeyFrame: "awaitingKeyFrame"
        case .encoderDroppedFrame: "encoderDroppedFrame"
        case .frameBudget: "frameBudget"
        }
    }

    /// The whole per-frame CSV, header first.
    public static func csv(_ frames: [FrameRecord]) -> String {
        var text = csvHeader + "\n"
        for frame in frames { text += frame.csvRow + "\n" }
        return text
    }
}
