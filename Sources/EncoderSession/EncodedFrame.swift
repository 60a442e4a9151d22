import Bitstream

/// One compressed access unit (the CMSampleBuffer a VTCompressionOutputCallback receives, as a value): the
/// `CodedAccessUnit` every rtenc module hands on (`accessUnit`: give it to `RTPSender.send`), plus the parameter sets
/// that changed with it.
public struct EncodedFrame: Sendable {
    /// The access unit in the session's `OutputFormat` (`.annexB` framing, or `.lengthPrefixed(lengthSize: 4)` for
    /// AVCC), its NAL units found once by the session, its keyframe flag parsed from the NAL unit types (not taken
    /// from the encoder's flag), and its times.
    public var accessUnit: CodedAccessUnit
    /// SPS and PPS NAL units (and HEVC's VPS; no start codes), present when they differ from the previous frame's —
    /// always on the first frame.
    public var parameterSets: ParameterSets?

    /// The MediaCore NAL unit type: nal_unit_type (H.264 or H.265 Table 7-1, by the access unit's codec) and the NAL
    /// unit's range in `bytes`.
    public typealias NALUnitRange = CodedAccessUnit.NALUnit

    init(accessUnit: CodedAccessUnit, parameterSets: ParameterSets?) {
        self.accessUnit = accessUnit
        self.parameterSets = parameterSets
    }

    // The access unit's parts under the names `EncodedFrame` has always had.

    /// The access unit in the session's `OutputFormat`: Annex-B with start codes, or AVCC with 4-byte lengths.
    public var bytes: [UInt8] {
        get { accessUnit.bytes }
        set { accessUnit.bytes = newValue }
    }
    public var presentationTime: MediaTime {
        get { accessUnit.presentationTime }
        set { accessUnit.presentationTime = newValue }
    }
    public var decodeTime: MediaTime {
        get { accessUnit.decodeTime }
        set { accessUnit.decodeTime = newValue }
    }
    /// An IDR access unit (HEVC: an IRAP), parsed from the NAL unit types, not taken from the encoder's flag.
    public var isKeyFrame: Bool {
        get { accessUnit.isKeyframe }
        set { accessUnit.isKeyframe = newValue }
    }
    /// Where each NAL unit lies in `bytes` (the NAL unit itself: header byte onward, no start code or length).
    public var nalUnits: [NALUnitRange] {
        get { accessUnit.nalUnits }
        set { accessUnit.nalUnits = newValue }
    }

    public struct ParameterSets: Sendable, Hashable {
        /// HEVC's VPS NAL units (empty for H.264).
        public var videoParameterSets: [[UInt8]] = []
        public var sequenceParameterSets: [[UInt8]]
        public var pictureParameterSets: [[UInt8]]
        /// The AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1) for H.264 AVCC output; nil for Annex-B and
        /// for HEVC (whose hvcC record is not built yet).
        /// `serialized()` gives the avcC bytes.
        public var avcC: AVCDecoderConfigurationRecord?
    }
}

extension CompressionSession.OutputFormat {
    /// How NAL units are delimited in an `EncodedFrame` of this format.
    var framing: CodedAccessUnit.Framing {
        switch self {
        case .annexB: .annexB
        case .avcc: .lengthPrefixed(lengthSize: 4)
        }
    }
}

/// Per-frame measurements VideoToolbox does not give.
public struct FrameStats: Sendable, Hashable {
    /// Bytes delivered for this frame (0 when dropped).
    public var bytes: Int = 0
    /// SliceQpY of the first slice (26 + pic_init_qp_minus26 + slice_qp_delta; HEVC: init_qp_minus26), parsed from
    /// the bitstream.
    public var qp: Int?
    /// Wall time of the whole `encode` call for this frame, µs (for a frame delivered by a later call, the call
    /// that delivered it).
    public var encodeMicroseconds: Double = 0
    /// Of that, time spent outside avcodec_send_frame/avcodec_receive_packet: buffer copies, parsing, rate
    /// control, delivery bookkeeping — the session's own overhead, µs.
    public var overheadMicroseconds: Double = 0
    /// The averageBitRate in force when the frame was submitted.
    public var targetBitRate: Int = 0
    /// The VBV max rate the encoder used for this frame (bits/s): what the rate controller gave libx264 for it, or
    /// for an encoder that reads its rate only at open (libx265, VA-API) the one it was opened with.
    public var encoderMaxBitRate: Int?
    /// True when the encoder was (re)opened for this frame (first frame, VA-API bitrate change, reconfigure).
    public var reopenedEncoder: Bool = false
    /// Why the frame was dropped, when it was.
    public var dropReason: DropReason?
    /// True for the one case a data-rate limit is exceeded: an IDR larger than a whole window, delivered into empty
    /// windows because no IDR could meet the limit (dropping it would leave the stream without a picture for good).
    public var exceededDataRateLimit: Bool = false
    /// The frame's byte budget (`FrameOptions.maxFrameBytes`), when it had one.
    public var frameBudgetBytes: Int?
    /// True when the delivered access unit is larger than its budget: x264 could not bring it down far enough (an IDR
    /// at QP 51, a budget under x264's 1-kbit VBV resolution), or the encoder cannot take a per-frame cap (libx265 and
    /// VA-API read their rate only at open). The frame is delivered all the same: dropping it after encoding would
    /// break the reference chain (the next frame would have to be an IDR, far bigger than the overrun).
    public var exceededFrameBudget: Bool = false
}

/// Why a submitted frame produced no output.
public enum DropReason: Sendable, Hashable {
    /// Refused before encoding: its predicted size would have put more than a `dataRateLimits` entry allows into a
    /// sliding window. The encoder never saw it, so later frames are unaffected.
    case dataRateLimit
    /// Refused after encoding: its real size overflowed a window. Later frames were predicted from it, so the next
    /// delivered frame is an IDR.
    case dataRateLimitAfterEncoding
    /// An earlier frame was dropped after encoding, so later frames referenced a picture the decoder never got;
    /// frames are dropped until an IDR fits the window.
    case awaitingKeyFrame
    /// The encoder returned no packet for it (it gave up on the frame).
    case encoderDroppedFrame
    /// Refused before encoding: its budget (`FrameOptions.maxFrameBytes`) was 0. The encoder never saw it.
    case frameBudget
}

extension CompressionSession {
    /// kVTEncodeInfo_* flags.
    public struct InfoFlags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// kVTEncodeInfo_Asynchronous: delivered by a later call than the one that submitted the frame.
        public static let asynchronous = InfoFlags(rawValue: 1 << 0)
        /// kVTEncodeInfo_FrameDropped.
        public static let frameDropped = InfoFlags(rawValue: 1 << 1)
    }
}

/// What the output callback and the stream receive once per submitted frame.
public struct EncoderOutput: Sendable {
    /// `.success` unless the encoder failed on this frame after accepting it.
    public var status: Result<Void, EncoderSessionError>
    public var infoFlags: CompressionSession.InfoFlags
    /// nil when dropped or failed.
    public var frame: EncodedFrame?
    public var presentationTime: MediaTime
    /// The caller's per-frame value, handed back untouched.
    public var context: (any Sendable)?
    public var stats: FrameStats
}

extension CompressionSession {
    /// Per-frame options (VideoToolbox's frameProperties).
    public struct FrameOptions: Sendable, Hashable {
        /// kVTEncodeFrameOptionKey_ForceKeyFrame: this very frame becomes an IDR with SPS/PPS in front.
        public var forceKeyFrame: Bool
        /// The most bytes this frame's access unit may take: a per-frame budget, as a congestion controller that
        /// knows the queue sets one (rtenc's `BitrateAllocation.frameBudgetBytes`; Salsify's "how many bytes may the
        /// next frame take"). nil: no budget, the rate control alone decides. 0: the frame is dropped before encoding
        /// (`DropReason.frameBudget`; a keyframe due on it moves to the next frame).
        ///
        /// With libx264 the session caps this one frame through x264's VBV — buffer = the budget, max rate = the
        /// budget × the frame rate (a single-frame VBV, which x264's row-level rate control plans and holds the frame
        /// to) — and puts its own steered VBV back for the next frame (`RateSettings.cappingFrame`). Measured on
        /// noisy 640×360, P frames and IDRs, budgets from 0.1 to 1 × the nominal frame: none over, every frame at
        /// 86–95 % of its budget (`FrameBudgetTests`, which allow 5 % over); a frame that exceeds it is still
        /// delivered and flagged (`FrameStats.exceededFrameBudget`). x264's buffer refills from where the budgeted
        /// frame left it, so a frame right after a small budget can come out below its own, larger budget (the
        /// simulator's x264: 833, 833, 250, 250, 833 bytes gave 687, 349, 168, 96, 191). Encoders that read their
        /// rate only at open (libx265, VA-API) cannot take a per-frame cap: there the budget is only checked and
        /// flagged.
        public var maxFrameBytes: Int?

        public init(forceKeyFrame: Bool = false, maxFrameBytes: Int? = nil) {
            self.forceKeyFrame = forceKeyFrame
            self.maxFrameBytes = maxFrameBytes
        }
    }
}
