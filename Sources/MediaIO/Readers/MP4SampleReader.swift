import Bitstream

/// One coded H.264 or H.265 sample as stored in an MP4/MOV file: length-prefixed NAL units (4-byte big-endian
/// lengths, or what the avcC/hvcC record's lengthSizeMinusOne says) with its timing.
public struct MP4Sample: Sendable, Hashable {
    public var bytes: [UInt8]
    public var pts: MediaTime
    public var dts: MediaTime
    public var isKeyframe: Bool
}

extension MP4Sample {
    /// The sample as a `CodedAccessUnit`: length-prefixed framing (`lengthSize` from the avcC/hvcC record:
    /// `MP4SampleReader.nalUnitLengthSize`), NAL units found by walking the lengths, the container's sync-sample flag
    /// as keyframe. The parameter sets stay out of band (`MP4SampleReader.parameterSets`).
    /// - Throws: `.invalidFormat` when the lengths do not tile the sample (the Bitstream error is in the reason).
    public func accessUnit(codec: VideoCodec, lengthSize: Int) throws(MediaIOError) -> CodedAccessUnit {
        var nalUnits: [CodedAccessUnit.NALUnit] = []
        do throws(BitstreamError) {
            for nal in try AVCC.split(bytes[...], lengthSize: lengthSize) {
                nalUnits.append(.init(type: codec.nalUnitType(firstByte: nal[nal.startIndex]), range: nal.indices))
            }
        } catch {
            throw .make(.invalidFormat, "MP4 sample at \(pts.seconds) s is not valid length-prefixed \(codec): \(error)")
        }
        return CodedAccessUnit(codec: codec, bytes: bytes, framing: .lengthPrefixed(lengthSize: lengthSize),
                               nalUnits: nalUnits, isKeyframe: isKeyframe, presentationTime: pts, decodeTime: dts)
    }
}

/// Reads the H.264 or H.265 video stream of an `.mp4`/`.mov` without decoding: length-prefixed samples in file order
/// plus the avcC or hvcC record (`avc1`/`avc3`, `hvc1`/`hev1` sample entries). What `rtenc annexb` and
/// `rtenc send file.mp4` read.
///
/// Plain files — one H.264 or H.265 video track, no fragments, no edit list that moves time — are read natively
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
    /// H.264 or H.265, from the sample entry (native) or the demuxer's codec id (libavformat).
    public let codec: VideoCodec
    /// The decoder configuration record from the sample description, as stored: the avcC payload (ISO/IEC 14496-15
    /// §5.3.3.1) for H.264, the hvcC payload (§8.3.3.1) for H.265.
    public let decoderConfigurationRecord: [UInt8]
    /// The same record parsed: parameter sets (in the order they go in front of a random-access picture) and NAL
    /// unit length size — what `AVCC.toAnnexB` takes.
    public let parameterSets: any OutOfBandParameterSets
    /// The record as H.264's avcC; nil for H.265.
    public var configuration: AVCDecoderConfigurationRecord? { parameterSets as? AVCDecoderConfigurationRecord }
    /// The record as H.265's hvcC; nil for H.264.
    public var hevcConfiguration: HEVC.DecoderConfigurationRecord? { parameterSets as? HEVC.DecoderConfigurationRecord }
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
            codec = file.index.codec
            decoderConfigurationRecord = file.index.decoderConfigurationRecord
            width = file.index.width
            height = file.index.height
            frameRate = file.index.frameRate ?? Rational(0, 0)
        } else {
            native = nil
            let input = try FormatInput(path: path)
            let stream = try input.bestVideoStreamInfo()
            guard stream.isH264 || stream.isHEVC else {
                throw .make(.unsupported, "\(path): the video stream is \(stream.codecName), not H.264 or H.265")
            }
            codec = stream.isHEVC ? .hevc : .h264
            // Annex-B extradata (from .ts, .h264) means Annex-B packets, not length-prefixed samples.
            guard stream.extradataIsDecoderConfigurationRecord else {
                throw .make(.unsupported, "\(path) (\(input.formatName)) carries no \(codec.decoderConfigurationRecordName) "
                    + "record: its samples are not length-prefixed")
            }
            (self.input, self.stream) = (input, stream)
            packet = try OwnedPacket()
            decoderConfigurationRecord = stream.extradata
            width = stream.width
            height = stream.height
            frameRate = stream.frameRate ?? Rational(0, 0)
        }
        do {
            parameterSets = try codec.decoderConfigurationRecord(parsing: decoderConfigurationRecord[...])
        } catch {
            throw .bitstream(error, "\(path): malformed \(codec.decoderConfigurationRecordName) record")
        }
    }

    /// NAL unit length size in bytes from the avcC/hvcC record (lengthSizeMinusOne + 1).
    public var nalUnitLengthSize: Int { parameterSets.nalUnitLengthSize }

    /// The next sample as a `CodedAccessUnit` (see `MP4Sample.accessUnit(codec:lengthSize:)`), or nil at the end.
    public func nextAccessUnit() throws(MediaIOError) -> CodedAccessUnit? {
        guard let sample = try nextSample() else { return nil }
        do {
            return try sample.accessUnit(codec: codec, lengthSize: nalUnitLengthSize)
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
