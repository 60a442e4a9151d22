import Bitstream
import CLibAV

/// One coded H.264 sample as stored in an MP4/MOV file: AVCC NAL units (4-byte big-endian lengths, or what the
/// avcC record's lengthSizeMinusOne says) with its timing.
public struct MP4Sample: Sendable, Hashable {
    public var bytes: [UInt8]
    public var pts: MediaTime
    public var dts: MediaTime
    public var isKeyframe: Bool
}

/// Demuxes the H.264 video stream of an `.mp4`/`.mov` with libavformat, without decoding: AVCC samples in file
/// order plus the avcC record (the stream's extradata). What `rtenc annexb` and `rtenc send file.mp4` read.
public final class MP4SampleReader {
    public let path: String
    public let width: Int
    public let height: Int
    /// Average frame rate, or 0/0 when the container does not say.
    public let frameRate: Rational
    /// The AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1) from the sample description, as stored.
    public let avcC: [UInt8]
    /// The same record parsed: parameter sets and NAL unit length size.
    public let configuration: AVCDecoderConfigurationRecord

    private let input: FormatInput
    private let streamIndex: Int32
    private let timeBase: AVRational
    private let packet: OwnedPacket
    private var samplesRead = 0

    public init(path: String) throws(MediaIOError) {
        self.path = path
        input = try FormatInput(path: path)
        let stream = try input.bestVideoStream()
        let parameters = stream.pointee.codecpar.pointee
        guard parameters.codec_id == AV_CODEC_ID_H264 else {
            let name = String(cString: avcodec_get_name(parameters.codec_id))
            throw .unsupported("\(path): the video stream is \(name), not H.264")
        }
        // An avcC record starts with configurationVersion 1; Annex-B extradata (from .ts, .h264) starts with 0.
        guard parameters.extradata_size > 6, let extradata = parameters.extradata, extradata[0] == 1 else {
            throw .unsupported("\(path) (\(input.formatName)) carries no avcC record: its samples are not AVCC")
        }
        avcC = Array(UnsafeBufferPointer(start: extradata, count: Int(parameters.extradata_size)))
        do {
            configuration = try AVCDecoderConfigurationRecord(parsing: avcC[...])
        } catch {
            throw .bitstream(error, "\(path): malformed avcC record")
        }
        width = Int(parameters.width)
        height = Int(parameters.height)
        frameRate = stream.pointee.avg_frame_rate.rational
        streamIndex = stream.pointee.index
        timeBase = stream.pointee.time_base
        guard timeBase.num > 0, timeBase.den > 0 else {
            throw .invalidFormat("\(path): video stream has no usable time base")
        }
        packet = try OwnedPacket()
    }

    /// NAL unit length size in bytes from the avcC record (lengthSizeMinusOne + 1).
    public var nalUnitLengthSize: Int { configuration.nalUnitLengthSize }

    /// The next sample of the video stream, or nil at the end of the file.
    public func nextSample() throws(MediaIOError) -> MP4Sample? {
        while true {
            do {
                guard try input.readPacket(into: packet) else { return nil }
            } catch {
                throw error.at(frame: samplesRead)
            }
            let value = packet.pointer.pointee
            guard value.stream_index == streamIndex else { continue }
            let bytes = value.data.map { Array(UnsafeBufferPointer(start: $0, count: Int(value.size))) } ?? []
            let dts = value.dts == LibAV.noTimestamp ? value.pts : value.dts
            let pts = value.pts == LibAV.noTimestamp ? dts : value.pts
            samplesRead += 1
            return MP4Sample(bytes: bytes, pts: time(pts), dts: time(dts),
                             isKeyframe: value.flags & AV_PKT_FLAG_KEY != 0)
        }
    }

    /// value × num/den seconds, exact as value·num ticks of 1/den.
    private func time(_ ticks: Int64) -> MediaTime {
        MediaTime(value: ticks == LibAV.noTimestamp ? 0 : ticks * Int64(timeBase.num), timescale: Int64(timeBase.den))
    }
}
