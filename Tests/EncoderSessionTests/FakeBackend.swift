import Bitstream
import Synchronization

@testable import EncoderSession

/// A stand-in for the libav layer: emits small but well-formed H.264 access units (SPS/PPS/IDR or P slice with a
/// chosen QP and size) so the session's state machine runs — and its parser checks — without libav.
final class FakeLog: Sendable {
    enum Event: Equatable, Sendable {
        case open(BackendKind, RateSettings)
        case send(pts: Int64, forceIDR: Bool)
        case setRate(RateSettings)
        case endOfStream
    }

    private let storage = Mutex<[Event]>([])
    func append(_ event: Event) { storage.withLock { $0.append(event) } }
    var events: [Event] { storage.withLock { $0 } }
    var opens: [BackendKind] { events.compactMap { if case .open(let kind, _) = $0 { kind } else { nil } } }
    var sends: [(pts: Int64, forceIDR: Bool)] {
        events.compactMap { if case .send(let pts, let force) = $0 { (pts, force) } else { nil } }
    }
}

struct FakeBackendFactory: CodecBackendFactory {
    var log = FakeLog()
    /// Kinds whose open fails with this error.
    var failing: [BackendKind: EncoderSessionError] = [:]
    /// Frames held inside the "encoder" before output (0 = real-time).
    var delay = 0
    /// Bytes of slice payload for frame number n (in send order) and whether it is an IDR.
    var payloadSize: @Sendable (Int, Bool) -> Int = { _, idr in idr ? 400 : 100 }
    var qp: @Sendable (Int) -> Int = { 30 + $0 % 5 }
    /// Frame numbers (in send order, per backend) whose receive fails, as a broken driver might.
    var failReceive: Set<Int> = []
    /// Frame numbers (in send order, per backend) whose send fails and leaves the backend closed, as
    /// X264Backend does when libavcodec keeps a reference to lent pixels.
    var failSendClosing: Set<Int> = []
    /// Kinds whose backend declares another codec than H.264 (as a mis-wired factory would).
    var codecs: [BackendKind: VideoCodec] = [:]

    func open(_ request: BackendOpenRequest) throws(EncoderSessionError) -> any CodecBackend {
        log.append(.open(request.kind, request.rate))
        if let error = failing[request.kind] { throw error }
        return FakeBackend(request: request, factory: self)
    }
}

final class FakeBackend: CodecBackend {
    let encoderName: String
    let codec: VideoCodec
    let isHardwareAccelerated: Bool
    var appliesRateLive: Bool { !isHardwareAccelerated }
    var maxLiveAverageBitRate: Int? { nil }
    private(set) var isOpen = true
    let extradata: [UInt8]
    private let factory: FakeBackendFactory
    private let globalHeader: Bool
    private var queue: [(pts: Int64, idr: Bool, index: Int)] = []
    private var sent = 0
    private var endOfStream = false
    private var first = true

    init(request: BackendOpenRequest, factory: FakeBackendFactory) {
        self.factory = factory
        codec = factory.codecs[request.kind] ?? .h264
        if case .vaapi = request.kind {
            encoderName = "h264_vaapi"
            isHardwareAccelerated = true
        } else {
            encoderName = "libx264"
            isHardwareAccelerated = false
        }
        globalHeader = request.globalHeader
        extradata = request.globalHeader ? FakeH264.startCode + FakeH264.sps + FakeH264.startCode + FakeH264.pps : []
    }

    func setRate(_ rate: RateSettings) { factory.log.append(.setRate(rate)) }

    func send(_ buffer: PixelBuffer, pts: Int64, forceIDR: Bool) throws(EncoderSessionError) -> Double {
        factory.log.append(.send(pts: pts, forceIDR: forceIDR))
        guard isOpen else { throw .invalidated() }
        if factory.failSendClosing.contains(sent) {
            isOpen = false
            throw EncoderSessionError(code: .encodeFailed, reason: "fake: the encoder kept the frame; closed")
        }
        queue.append((pts, forceIDR || first, sent))
        first = false
        sent += 1
        return 1
    }

    func sendEndOfStream() throws(EncoderSessionError) {
        factory.log.append(.endOfStream)
        endOfStream = true
    }

    func receive(into packets: inout [CodecPacket]) throws(EncoderSessionError) -> Double {
        if let last = queue.last, factory.failReceive.contains(last.index) {
            throw EncoderSessionError(
                code: .encodeFailed, reason: "avcodec_receive_packet failed", averror: -5, libavMessage: "I/O error")
        }
        while queue.count > (endOfStream ? 0 : factory.delay) {
            let frame = queue.removeFirst()
            var bytes: [UInt8] = []
            if frame.idr, !globalHeader {
                bytes += FakeH264.startCode + FakeH264.sps + FakeH264.startCode + FakeH264.pps
            }
            bytes += FakeH264.startCode
            bytes += FakeH264.slice(
                idr: frame.idr, frameNum: frame.index, qp: factory.qp(frame.index),
                payload: factory.payloadSize(frame.index, frame.idr))
            packets.append(CodecPacket(bytes: bytes, pts: frame.pts, dts: frame.pts))
        }
        return 1
    }
}

/// Hand-written H.264 syntax for the fake (7.3.2.1.1, 7.3.2.2, 7.3.3), through a tiny bit writer.
enum FakeH264 {
    static let startCode: [UInt8] = [0, 0, 0, 1]

    struct BitWriter {
        var bytes: [UInt8] = []
        var bitCount = 0
        mutating func u(_ value: Int, _ bits: Int) {
            for shift in stride(from: bits - 1, through: 0, by: -1) {
                if bitCount % 8 == 0 { bytes.append(0) }
                bytes[bytes.count - 1] |= UInt8((value >> shift) & 1) << (7 - UInt8(bitCount % 8))
                bitCount += 1
            }
        }
        mutating func ue(_ value: Int) {
            let code = value + 1
            let length = Int.bitWidth - code.leadingZeroBitCount
            u(0, length - 1)
            u(code, length)
        }
        mutating func se(_ value: Int) { ue(value > 0 ? 2 * value - 1 : -2 * value) }
        mutating func trailing() {
            u(1, 1)
            while bitCount % 8 != 0 { u(0, 1) }
        }
    }

    /// Baseline 160×128, level 3.0, POC type 2, frame_num 4 bits.
    static let sps: [UInt8] = {
        var w = BitWriter()
        w.u(0x67, 8)  // nal_ref_idc 3, nal_unit_type 7
        w.u(66, 8)
        w.u(0xE0, 8)
        w.u(30, 8)  // profile_idc, constraint flags (as the session writes them), level_idc
        w.ue(0)  // seq_parameter_set_id
        w.ue(0)  // log2_max_frame_num_minus4
        w.ue(2)  // pic_order_cnt_type
        w.ue(1)  // max_num_ref_frames
        w.u(0, 1)  // gaps_in_frame_num_value_allowed_flag
        w.ue(9)
        w.ue(7)  // pic_width_in_mbs_minus1, pic_height_in_map_units_minus1
        w.u(1, 1)
        w.u(1, 1)
        w.u(0, 1)
        w.u(0, 1)  // frame_mbs_only, direct_8x8, cropping, vui
        w.trailing()
        return w.bytes
    }()

    static let pps: [UInt8] = {
        var w = BitWriter()
        w.u(0x68, 8)
        w.ue(0)
        w.ue(0)  // pps id, sps id
        w.u(0, 1)
        w.u(0, 1)  // entropy_coding_mode_flag, bottom_field_pic_order_in_frame_present_flag
        w.ue(0)
        w.ue(0)
        w.ue(0)  // num_slice_groups_minus1, num_ref_idx_l0/l1_default_active_minus1
        w.u(0, 1)
        w.u(0, 2)  // weighted_pred_flag, weighted_bipred_idc
        w.se(0)
        w.se(0)
        w.se(0)  // pic_init_qp_minus26, pic_init_qs_minus26, chroma_qp_index_offset
        w.u(1, 1)
        w.u(0, 1)
        w.u(0, 1)  // deblocking control, constrained intra, redundant_pic_cnt_present
        w.trailing()
        return w.bytes
    }()

    static func slice(idr: Bool, frameNum: Int, qp: Int, payload: Int) -> [UInt8] {
        var w = BitWriter()
        w.u(idr ? 0x65 : 0x41, 8)
        w.ue(0)  // first_mb_in_slice
        w.ue(idr ? 7 : 5)  // slice_type I / P (all slices of the picture alike)
        w.ue(0)  // pic_parameter_set_id
        w.u(frameNum & 15, 4)  // frame_num
        if idr { w.ue(0) }  // idr_pic_id
        if !idr {
            w.u(0, 1)  // num_ref_idx_active_override_flag
            w.u(0, 1)  // ref_pic_list_modification_flag_l0
        }
        if idr {
            w.u(0, 1)
            w.u(0, 1)
        } else {
            w.u(0, 1)
        }  // dec_ref_pic_marking
        w.se(qp - 26)  // slice_qp_delta
        w.trailing()
        // Stand-in slice data: bytes that never form a start code.
        return w.bytes + [UInt8](repeating: 0xAA, count: payload)
    }
}
