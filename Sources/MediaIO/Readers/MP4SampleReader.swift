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

/// Reads the H.264 video stream of an `.mp4`/`.mov` without decoding: AVCC samples in file order plus the avcC
/// record. What `rtenc annexb` and `rtenc send file.mp4` read.
///
/// Plain files — one H.264 video track, no fragments, no edit list that moves time — are read natively
/// (`MP4File`: the sample tables, then one pread per sample), without loading libavformat; everything else goes
/// through libavformat, as before. Both give the same samples, times, keyframes and frame rate (MP4SampleReaderTests
/// checks them against each other).
public final class MP4SampleReader {
    /// Which demuxer reads the file.
    public enum Demuxer: Sendable, Hashable {
        /// The native one when it can index the file, else libavformat.
        case automatic
        /// libavformat always.
        case libavformat
    }

    public let path: String
    public let width: Int
    public let height: Int
    /// Average frame rate, or 0/0 when the container does not say.
    public let frameRate: Rational
    /// The AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1) from the sample description, as stored.
    public let avcC: [UInt8]
    /// The same record parsed: parameter sets and NAL unit length size.
    public let configuration: AVCDecoderConfigurationRecord
    /// True when libavformat reads this file (the native reader could not index it, or it was asked for).
    public var usesLibAVFormat: Bool { native == nil }

    private let native: MP4File?
    private let input: FormatInput?
    private let stream: StreamInfo?
    private let packet: OwnedPacket?
    private var samplesRead = 0

    public init(path: String, demuxer: Demuxer = .automatic) throws(MediaIOError) {
        self.path = path
        if demuxer == .automatic, let file = MP4File.open(path: path) {
            native = file
            (input, stream, packet) = (nil, nil, nil)
            avcC = file.index.avcC
            width = file.index.width
            height = file.index.height
            frameRate = file.index.frameRate ?? Rational(0, 0)
        } else {
            native = nil
            let input = try FormatInput(path: path)
            let stream = try input.bestVideoStreamInfo()
            guard stream.isH264 else {
                throw .unsupported("\(path): the video stream is \(stream.codecName), not H.264")
            }
            // An avcC record starts with configurationVersion 1; Annex-B extradata (from .ts, .h264) starts with 0.
            guard stream.extradata.first == 1 else {
                throw .unsupported("\(path) (\(input.formatName)) carries no avcC record: its samples are not AVCC")
            }
            (self.input, self.stream) = (input, stream)
            packet = try OwnedPacket()
            avcC = stream.extradata
            width = stream.width
            height = stream.height
            frameRate = stream.frameRate ?? Rational(0, 0)
        }
        do {
            configuration = try AVCDecoderConfigurationRecord(parsing: avcC[...])
        } catch {
            throw .bitstream(error, "\(path): malformed avcC record")
        }
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
        if let native {
            guard samplesRead < native.index.samples.count else { return nil }
            let entry = native.index.samples[samplesRead]
            let bytes: [UInt8]
            do {
                bytes = try native.readSample(samplesRead)
            } catch {
                throw error.at(frame: samplesRead)
            }
            samplesRead += 1
            let time = { (ticks: Int64) in MediaTime(value: ticks, timescale: native.index.timescale) }
            return MP4Sample(bytes: bytes, pts: time(entry.dts + entry.compositionOffset), dts: time(entry.dts),
                             isKeyframe: entry.isSync)
        }
        guard let input, let stream, let packet else { return nil }
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
