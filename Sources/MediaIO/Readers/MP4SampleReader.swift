import Bitstream

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
    private let stream: StreamInfo
    private let packet: OwnedPacket
    private var samplesRead = 0

    public init(path: String) throws(MediaIOError) {
        self.path = path
        input = try FormatInput(path: path)
        stream = try input.bestVideoStreamInfo()
        guard stream.isH264 else {
            throw .unsupported("\(path): the video stream is \(stream.codecName), not H.264")
        }
        // An avcC record starts with configurationVersion 1; Annex-B extradata (from .ts, .h264) starts with 0.
        guard stream.extradata.first == 1 else {
            throw .unsupported("\(path) (\(input.formatName)) carries no avcC record: its samples are not AVCC")
        }
        avcC = stream.extradata
        do {
            configuration = try AVCDecoderConfigurationRecord(parsing: avcC[...])
        } catch {
            throw .bitstream(error, "\(path): malformed avcC record")
        }
        width = stream.width
        height = stream.height
        frameRate = stream.frameRate ?? Rational(0, 0)
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
            guard packet.streamIndex == stream.index else { continue }
            // MP4 always stores dts; pts may be absent for a sample without composition offset.
            let dts = packet.dts ?? packet.pts ?? 0
            let pts = packet.pts ?? dts
            samplesRead += 1
            return MP4Sample(bytes: packet.bytes, pts: stream.time(pts), dts: stream.time(dts),
                             isKeyframe: packet.isKeyframe)
        }
    }
}
