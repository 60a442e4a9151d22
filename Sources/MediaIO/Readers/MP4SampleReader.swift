import Bitstream

/// One coded H.264 sample as stored in an MP4/MOV file: AVCC NAL units (4-byte big-endian lengths, or what the
/// avcC record's lengthSizeMinusOne says) with its timing.
public struct MP4Sample: Sendable, Hashable {
    public var bytes: [UInt8]
    public var pts: MediaTime
    public var dts: MediaTime
    public var isKeyframe: Bool
}

extension MP4Sample {
    /// The sample as a `CodedAccessUnit`: length-prefixed framing (`lengthSize` from the avcC record:
    /// `MP4SampleReader.nalUnitLengthSize`), NAL units found by walking the lengths, the container's sync-sample flag
    /// as keyframe. The parameter sets stay out of band (`MP4SampleReader.configuration`).
    /// - Throws: `.invalidFormat` when the lengths do not tile the sample (the Bitstream error is in the reason).
    public func accessUnit(lengthSize: Int) throws(MediaIOError) -> CodedAccessUnit {
        var nalUnits: [CodedAccessUnit.NALUnit] = []
        do throws(BitstreamError) {
            for nal in try AVCC.split(bytes[...], lengthSize: lengthSize) {
                nalUnits.append(.init(type: VideoCodec.h264.nalUnitType(firstByte: nal[nal.startIndex]), range: nal.indices))
            }
        } catch {
            throw .invalidFormat("MP4 sample at \(pts.seconds) s is not valid AVCC: \(error)")
        }
        return CodedAccessUnit(codec: .h264, bytes: bytes, framing: .lengthPrefixed(lengthSize: lengthSize),
                               nalUnits: nalUnits, isKeyframe: isKeyframe, presentationTime: pts, decodeTime: dts)
    }
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

    /// The next sample as a `CodedAccessUnit` (see `MP4Sample.accessUnit(lengthSize:)`), or nil at the end.
    public func nextAccessUnit() throws(MediaIOError) -> CodedAccessUnit? {
        guard let sample = try nextSample() else { return nil }
        do {
            return try sample.accessUnit(lengthSize: nalUnitLengthSize)
        } catch {
            throw error.at(frame: samplesRead - 1)
        }
    }

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
