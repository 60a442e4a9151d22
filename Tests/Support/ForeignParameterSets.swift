
/// Parameter sets from encoders other than x264, and from the test vectors of peers' parsers, with what ffprobe
/// (FFmpeg 5.1.9) reports for each. The fields were read by running ffprobe on a stream of the SPS, the PPS
/// `68 ce 3c 80` and an IDR slice header (`stream(sps:slice:)`; BitstreamTests' ForeignSPSTests builds the same
/// stream at test time and checks that ffprobe still says so, rtencTests' that `rtenc inspect` agrees); only the
/// bytes are copied from the sources named. Shared by both test targets, so it lives here.
///
/// OpenH264: Cisco OpenH264 2.3.1 (Debian libopenh264-7) through GStreamer 1.22 `videotestsrc num-buffers=10 ! video/x-raw,width=W,height=H ! openh264enc ! h264parse` with default settings unless the name says otherwise (framerate=60/1; bitrate=2000000 rate-control=bitrate). Every OpenH264 SPS writes log2_max_mv_length_horizontal/vertical = 16 (§E.2.1 allows 0…15). PPS of all of them: 68 ce 3c 80.
/// No other H.264 encoder of Debian's libavcodec runs here: h264_nvenc, h264_qsv, h264_vaapi, h264_v4l2m2m need
/// hardware, h264_omx an OpenMAX library. pion/rtp's tests hold no SPS.
public enum ForeignParameterSets {
    public struct Fixture: Sendable, CustomStringConvertible {
        public var name: String
        /// The SPS NAL unit, header byte included, as hex.
        public var hex: String
        /// ffprobe -show_streams: width, height, profile, level.
        public var width: Int
        public var height: Int
        public var profile: String
        public var level: Int
        /// time_scale ÷ (2 · num_units_in_tick), where ffprobe's r_frame_rate is that exact value; nil otherwise.
        public var fps: Double?
        /// The warning codes the lenient parse must report, in order.
        public var warnings: [String]
        public var source: String
        public var description: String { name }
        public var bytes: [UInt8] { ForeignParameterSets.bytes(hex) }
    }

    public static let openH264PPS: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    public static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    public static let fixtures: [Fixture] = [
        Fixture(
            name: "openh264-100x60", hex: "6742d00b8c8d4392cf700f08846a",
            width: 100, height: 60, profile: "Constrained Baseline", level: 11, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264; level_idc 11 with constraint_set3_flag: level 1b"),
        Fixture(
            name: "openh264-160x120", hex: "6742c00b8c8d41422f2c03c2211a80",
            width: 160, height: 120, profile: "Constrained Baseline", level: 11, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264 through GStreamer openh264enc (see the comment above)"),
        Fixture(
            name: "openh264-176x144", hex: "6742c00b8c8d41626403c2211a80",
            width: 176, height: 144, profile: "Constrained Baseline", level: 11, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264 through GStreamer openh264enc (see the comment above)"),
        Fixture(
            name: "openh264-250x150", hex: "6742c00c8c8d4080ab24d00f08846a",
            width: 250, height: 150, profile: "Constrained Baseline", level: 12, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264 through GStreamer openh264enc (see the comment above)"),
        Fixture(
            name: "openh264-320x240", hex: "6742c00d8c8d40a0f900f08846a0",
            width: 320, height: 240, profile: "Constrained Baseline", level: 13, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264 through GStreamer openh264enc (see the comment above)"),
        Fixture(
            name: "openh264-320x240-60fps", hex: "6742c0158c8d40a0f900f08846a0",
            width: 320, height: 240, profile: "Constrained Baseline", level: 21, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264 through GStreamer openh264enc (see the comment above)"),
        Fixture(
            name: "openh264-320x240-2mbps", hex: "6742c0148c8d40a0f900f08846a0",
            width: 320, height: 240, profile: "Constrained Baseline", level: 20, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264 through GStreamer openh264enc (see the comment above)"),
        Fixture(
            name: "openh264-352x288", hex: "6742c00d8c8d40b04a403c2211a8",
            width: 352, height: 288, profile: "Constrained Baseline", level: 13, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264 through GStreamer openh264enc (see the comment above)"),
        Fixture(
            name: "openh264-640x480", hex: "6742c01e8c8d40501ed00f08846a",
            width: 640, height: 480, profile: "Constrained Baseline", level: 30, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264 through GStreamer openh264enc (see the comment above)"),
        Fixture(
            name: "openh264-1024x768", hex: "6742c01f8c8d4020030d00f08846a0",
            width: 1024, height: 768, profile: "Constrained Baseline", level: 31, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264 through GStreamer openh264enc (see the comment above)"),
        Fixture(
            name: "openh264-1280x720", hex: "6742c01f8c8d402802dd00f08846a0",
            width: 1280, height: 720, profile: "Constrained Baseline", level: 31, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264 through GStreamer openh264enc (see the comment above)"),
        Fixture(
            name: "openh264-1920x1080", hex: "6742c0288c8d403c0113f2c03c2211a8",
            width: 1920, height: 1080, profile: "Constrained Baseline", level: 40, fps: nil,
            warnings: ["outOfRange", "outOfRange"],
            source: "OpenH264 through GStreamer openh264enc (see the comment above)"),
        Fixture(
            name: "mediacommon-352x288", hex: "6764000cac3b50b04b420000030002000003003d08",
            width: 352, height: 288, profile: "High", level: 12, fps: 15,
            warnings: [],
            source: "bluenviron/mediacommon pkg/codecs/h264/sps_test.go case \"352x288\""),
        Fixture(
            name: "mediacommon-1280x720", hex: "6764001facd9405005bb016c80000003008000001e078c18cb",
            width: 1280, height: 720, profile: "High", level: 31, fps: 30,
            warnings: [],
            source: "mediacommon sps_test.go \"1280x720\""),
        Fixture(
            name: "mediacommon-1920x1080-baseline", hex: "6742c028d900780227e584000003000400000300f03c60c920",
            width: 1920, height: 1080, profile: "Constrained Baseline", level: 40, fps: 30,
            warnings: [],
            source: "mediacommon sps_test.go \"1920x1080 baseline\""),
        Fixture(
            name: "mediacommon-1920x1080-nvidia", hex: "67640028acd940780227e584000003000400000300f03c60c658",
            width: 1920, height: 1080, profile: "High", level: 40, fps: 30,
            warnings: [],
            source: "mediacommon sps_test.go \"1920x1080 nvidia\""),
        Fixture(
            name: "mediacommon-1920x1080-cut", hex: "67640029ac133140780447de03ea020203e0000003002000000652",
            width: 1920, height: 1080, profile: "High", level: 41, fps: 25,
            warnings: ["truncated"],
            source: "mediacommon sps_test.go \"1920x1080\", whose last byte (0x80, the stop bit) is commented out in the test: the VUI runs into the end of the NAL unit and FFmpeg warns \"Overread VUI by 2 bits\""),
        Fixture(
            name: "mediacommon-hikvision", hex: "67640020ac172a01401e68400001c2000057e421",
            width: 1280, height: 960, profile: "High", level: 32, fps: 25,
            warnings: [],
            source: "mediacommon sps_test.go \"hikvision\" (a camera)"),
        Fixture(
            name: "mediacommon-scaling-matrix", hex: "67640032ad84010c20086100430802184010c200843b5014005ad370101014000003000400000300a210",
            width: 2560, height: 1440, profile: "High", level: 50, fps: 20,
            warnings: [],
            source: "mediacommon sps_test.go \"scaling matrix\""),
        Fixture(
            name: "mediacommon-nvenc-hrd", hex: "6764002aac2cac0780227e5c05a808080a000007d00003a981c000004c4b00002625adde5c14",
            width: 1920, height: 1080, profile: "High", level: 42, fps: 60,
            warnings: [],
            source: "mediacommon sps_test.go \"1920x1080 nvenc hrd\""),
        Fixture(
            name: "mediacommon-hikvision-hrd", hex: "674d00299a6403c0113f2e02dc04040500000303e80000c350e86000bab40002eac4bbcb8d0c00175680005d58977970a0",
            width: 1920, height: 1080, profile: "Main", level: 41, fps: 25,
            warnings: [],
            source: "mediacommon sps_test.go \"1920x1080 hikvision nal hrd + vcl hrd\""),
        Fixture(
            name: "mediacommon-1920x1080-interlaced", hex: "674d4028ab603c0223ef01100000030010000003032e9400356406b285080ee2c522c0",
            width: 1920, height: 1080, profile: "Main", level: 40, fps: 25,
            warnings: [],
            source: "mediacommon sps_test.go \"1920x1080 mbs_only_flag = 0\""),
        Fixture(
            name: "libwebrtc-1280x720", hex: "677A001FBCD9405005BA1000000300C000002AE0F1831960",
            width: 1280, height: 720, profile: "High 4:2:2", level: 31, fps: nil,
            warnings: [],
            source: "webrtc common_video/h264/sps_parser_unittest.cc TestSampleSPSHdLandscape (ffmpeg on macOS camera capture; the test strips the 0x67 header, restored here)"),
        Fixture(
            name: "libwebrtc-640x360", hex: "677A001EBCD940A02FF89840000003018000005683C58B6580",
            width: 640, height: 360, profile: "High 4:2:2", level: 30, fps: nil,
            warnings: [],
            source: "sps_parser_unittest.cc TestSampleSPSVgaLandscape"),
        Fixture(
            name: "libwebrtc-200x400", hex: "677A000DBCD943433E5E100000030060000015A0F1429960",
            width: 200, height: 400, profile: "High 4:2:2", level: 13, fps: nil,
            warnings: [],
            source: "sps_parser_unittest.cc TestSampleSPSWeirdResolution"),
        Fixture(
            name: "libwebrtc-1920x1080-scaling", hex: "6764002aad84010c20086100430802184010c200843b503c0113f2cdc0404050000003001000000301e840",
            width: 1920, height: 1080, profile: "High", level: 42, fps: nil,
            warnings: [],
            source: "sps_parser_unittest.cc TestSampleSPSWithScalingLists; the test holds the RBSP unescaped (00 00 00 10, 00 00 01 e8), so emulation prevention is added back. Its VUI has num_units_in_tick 0 and runs 8 bits past the stop bit"),
    ]

    /// The SPS fields an IDR slice header's syntax depends on (§7.3.3), for `stream(sps:slice:)`.
    public struct SliceSyntax: Sendable {
        public var separateColourPlane: Bool
        public var log2MaxFrameNum: Int
        public var frameMbsOnly: Bool
        public var picOrderCntType: Int
        /// Present when picOrderCntType is 0.
        public var log2MaxPicOrderCntLsb: Int?
        public var deltaPicOrderAlwaysZero: Bool

        public init(
            separateColourPlane: Bool, log2MaxFrameNum: Int, frameMbsOnly: Bool, picOrderCntType: Int,
            log2MaxPicOrderCntLsb: Int?, deltaPicOrderAlwaysZero: Bool
        ) {
            self.separateColourPlane = separateColourPlane
            self.log2MaxFrameNum = log2MaxFrameNum
            self.frameMbsOnly = frameMbsOnly
            self.picOrderCntType = picOrderCntType
            self.log2MaxPicOrderCntLsb = log2MaxPicOrderCntLsb
            self.deltaPicOrderAlwaysZero = deltaPicOrderAlwaysZero
        }
    }

    /// An Annex-B stream of `sps` (SPS id 0), OpenH264's PPS (id 0 → SPS 0) and one IDR slice whose header fits
    /// the SPS. The slice data is filler a decoder rejects; the header is enough for ffprobe to report the stream
    /// and for `rtenc inspect` to read it. Written with its own few lines of bit writing, so this target needs no
    /// Bitstream.
    public static func stream(sps: [UInt8], slice: SliceSyntax) -> [UInt8] {
        var bits: [Bool] = []
        func write(_ value: Int, count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        func ue(_ value: Int) {
            let code = value + 1
            let length = Int.bitWidth - code.leadingZeroBitCount
            write(0, count: length - 1)
            write(code, count: length)
        }
        ue(0)  // first_mb_in_slice
        ue(7)  // slice_type I (all slices of the picture)
        ue(0)  // pic_parameter_set_id
        if slice.separateColourPlane { write(0, count: 2) }  // colour_plane_id
        write(0, count: slice.log2MaxFrameNum)  // frame_num
        if !slice.frameMbsOnly { write(0, count: 1) }  // field_pic_flag
        ue(0)  // idr_pic_id
        if slice.picOrderCntType == 0, let lsb = slice.log2MaxPicOrderCntLsb { write(0, count: lsb) }
        if slice.picOrderCntType == 1, !slice.deltaPicOrderAlwaysZero { ue(0) }  // delta_pic_order_cnt[0] = se 0
        write(0, count: 2)  // no_output_of_prior_pics_flag, long_term_reference_flag
        ue(0)  // slice_qp_delta = se 0
        ue(1)  // disable_deblocking_filter_idc (the PPS has deblocking_filter_control_present_flag)
        for byte in [0x88, 0x84, 0x21, 0xA0, 0x55, 0x66, 0x77] { write(byte, count: 8) }
        bits.append(true)  // rbsp_stop_one_bit
        while bits.count % 8 != 0 { bits.append(false) }
        var rbsp: [UInt8] = []
        for index in stride(from: 0, to: bits.count, by: 8) {
            rbsp.append(bits[index..<(index + 8)].reduce(0) { $0 << 1 | ($1 ? 1 : 0) })
        }
        // emulation_prevention_three_byte after two zeros before a byte ≤ 3 (§7.4.1).
        var payload: [UInt8] = []
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2, byte <= 3 { payload.append(3); zeros = 0 }
            payload.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        let startCode: [UInt8] = [0, 0, 0, 1]
        return startCode + sps + startCode + openH264PPS + startCode + [0x65] + payload
    }
}
