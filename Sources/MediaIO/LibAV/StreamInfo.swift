import Bitstream
import CLibAV

/// What the layers above need to know about a demuxed stream, copied out of `AVStream`/`AVCodecParameters` so no
/// caller holds a libav pointer.
struct StreamInfo {
    let index: Int32
    /// libavcodec's codec name ("h264", "hevc", "mpeg4", "rawvideo").
    let codecName: String
    let isH264: Bool
    let isHEVC: Bool
    let width: Int
    let height: Int
    /// Seconds per tick; both terms positive (checked at construction).
    let timeBase: Rational
    /// avg_frame_rate, else r_frame_rate; nil when the container says neither.
    let frameRate: Rational?
    /// codecpar.extradata: the avcC (H.264) or hvcC (H.265) record in MP4, Annex-B parameter sets in other containers.
    let extradata: [UInt8]
    /// The stream's display matrix (MP4 `tkhd`, or libav's side data from other containers), when it has one.
    let displayMatrix: DisplayMatrix?

    init(_ stream: UnsafeMutablePointer<AVStream>, path: String) throws(MediaIOError) {
        guard let parameters = stream.pointee.codecpar?.pointee else {
            throw .make(.demuxFailed, "\(path): stream has no codec parameters")
        }
        let timeBase = stream.pointee.time_base
        guard timeBase.num > 0, timeBase.den > 0 else {
            throw .make(.demuxFailed, "\(path): video stream has no usable time base")
        }
        index = stream.pointee.index
        codecName = String(cString: rtenc_avcodec_get_name(parameters.codec_id))
        isH264 = parameters.codec_id == AV_CODEC_ID_H264
        isHEVC = parameters.codec_id == AV_CODEC_ID_HEVC
        width = Int(parameters.width)
        height = Int(parameters.height)
        self.timeBase = timeBase.rational
        frameRate = [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate]
            .first { $0.num > 0 && $0.den > 0 }?.rational
        if let extradata = parameters.extradata, parameters.extradata_size > 0 {
            self.extradata = Array(UnsafeBufferPointer(start: extradata, count: Int(parameters.extradata_size)))
        } else {
            self.extradata = []
        }
        displayMatrix = Self.displayMatrix(of: stream)
    }

    /// The AV_PKT_DATA_DISPLAYMATRIX side data of the stream: nine int32 in native byte order (libavutil/display.h).
    private static func displayMatrix(of stream: UnsafeMutablePointer<AVStream>) -> DisplayMatrix? {
        guard let sideData = stream.pointee.side_data else { return nil }
        for index in 0..<Int(max(0, stream.pointee.nb_side_data)) {
            let entry = sideData[index]
            guard entry.type == AV_PKT_DATA_DISPLAYMATRIX, entry.size >= 36, let data = entry.data else { continue }
            let values = (0..<9).map { UnsafeRawPointer(data).loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self) }
            return DisplayMatrix(values)
        }
        return nil
    }

    /// Whether `extradata` is a decoder configuration record (avcC, hvcC) — the packets are length-prefixed then —
    /// rather than Annex-B parameter sets. A record starts with configurationVersion 1 (hvcC: 0 in pre-standard files,
    /// which FFmpeg also reads); Annex-B extradata starts with a start code's 00 00.
    var extradataIsDecoderConfigurationRecord: Bool {
        extradata.first == 1 || (isHEVC && extradata.count > 3 && extradata.prefix(3) != [0, 0, 1]
            && extradata.prefix(4) != [0, 0, 0, 1])
    }

    /// `ticks` of this stream's time base as a MediaTime, exactly: ticks × num/den s = ticks·num units of 1/den s.
    func time(_ ticks: Int64) -> MediaTime {
        MediaTime(value: ticks * Int64(timeBase.numerator), timescale: Int64(timeBase.denominator))
    }

    /// One frame at `rate`, in ticks of this time base (at least one tick).
    func ticks(perFrameAt rate: Rational) -> Int64 {
        guard rate.numerator > 0, rate.denominator > 0 else { return 1 }
        let ticks = Int64(timeBase.denominator) * Int64(rate.denominator)
            / (Int64(timeBase.numerator) * Int64(rate.numerator))
        return max(1, ticks)
    }
}
