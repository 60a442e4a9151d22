import Bitstream

/// The H.264 or H.265 video stream of any file libavformat demuxes (MP4, MOV, Matroska, MPEG-TS, FLV …), packet by
/// packet, as Annex-B bytes and without decoding. What `rtenc inspect` reads when its input is not a raw Annex-B
/// stream.
///
/// Two framings reach here. With an avcC or hvcC record as extradata (MP4, MOV, Matroska, FLV) the packets are
/// length-prefixed samples; they are converted as `rtenc annexb` converts them (Bitstream's converter, the record's
/// parameter sets put in front of every IDR/IRAP picture that lacks them, as h264_mp4toannexb and hevc_mp4toannexb
/// do). Otherwise (MPEG-TS, raw streams through libavformat) the packets already are Annex-B, as they are; Annex-B
/// extradata goes in front of the first packet only when that packet carries no SPS of its own.
public final class ContainerAnnexBReader {
    public let path: String
    /// libavformat's name of the container ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "mpegts").
    public let formatName: String
    /// H.264 or H.265, from the demuxer's codec id.
    public let codec: VideoCodec
    /// The avcC record when the H.264 packets are AVCC; nil when they are Annex-B or the stream is H.265.
    public let configuration: AVCDecoderConfigurationRecord?
    /// The hvcC record when the H.265 packets are length-prefixed; nil otherwise.
    public let hevcConfiguration: HEVC.DecoderConfigurationRecord?
    /// What the record's parser accepted against ISO/IEC 14496-15 (empty without a record).
    public var recordWarnings: [BitstreamWarning] { configuration?.warnings ?? hevcConfiguration?.warnings ?? [] }
    /// The record the packets are converted with, whichever codec.
    private var outOfBand: (any OutOfBandParameterSets)? { configuration ?? hevcConfiguration }

    private let input: FormatInput
    private let stream: StreamInfo
    private let packet: OwnedPacket
    private var pendingExtradata: [UInt8]
    private var packetsRead = 0

    public init(path: String) throws(MediaIOError) {
        self.path = path
        input = try FormatInput(path: path)
        formatName = input.formatName
        stream = try input.bestVideoStreamInfo()
        guard stream.isH264 || stream.isHEVC else {
            throw .make(.unsupported, "\(path): the video stream is \(stream.codecName), not H.264 or H.265")
        }
        codec = stream.isHEVC ? .hevc : .h264
        let extradata = stream.extradata
        let isRecord = stream.extradataIsDecoderConfigurationRecord
        do {
            configuration = isRecord && codec == .h264 ? try AVCDecoderConfigurationRecord(parsing: extradata[...]) : nil
            hevcConfiguration = isRecord && codec == .hevc
                ? try HEVC.DecoderConfigurationRecord(parsing: extradata[...]) : nil
        } catch {
            throw .bitstream(error, "\(path): malformed \(codec == .hevc ? "hvcC" : "avcC") record")
        }
        pendingExtradata = isRecord ? [] : extradata
        packet = try OwnedPacket()
    }

    /// The next packet of the video stream as Annex-B (extradata parameter sets in front of the first), or nil at
    /// the end of the file.
    public func nextPacket() throws(MediaIOError) -> [UInt8]? {
        while true {
            do {
                guard try input.readPacket(into: packet) else { return nil }
            } catch {
                throw error.at(frame: packetsRead)
            }
            guard packet.streamIndex == stream.index else { continue }
            let index = packetsRead
            packetsRead += 1
            guard let outOfBand else {
                let bytes = packet.bytes
                defer { pendingExtradata = [] }
                // MPEG-TS repeats its parameter sets in band (libavformat copies the first ones into extradata):
                // only a first packet without an SPS gets the extradata's in front, so nothing appears twice.
                let spsType: UInt8 = codec == .hevc ? 33 : 7
                let hasSPS = ((try? AnnexB.split(bytes[...])) ?? []).contains {
                    $0.first.map { codec.nalUnitType(firstByte: $0) == spsType } ?? false
                }
                return hasSPS ? bytes : pendingExtradata + bytes
            }
            do {
                return try AVCC.toAnnexB(
                    packet.bytes[...], lengthSize: outOfBand.nalUnitLengthSize, parameterSets: outOfBand)
            } catch {
                throw .bitstream(error, "\(path): packet \(index) is not valid length-prefixed \(codec)", frameIndex: index)
            }
        }
    }

    /// Every packet, joined: the whole stream as one Annex-B buffer.
    public func readAll() throws(MediaIOError) -> [UInt8] {
        var bytes: [UInt8] = []
        while let next = try nextPacket() {
            bytes += next
        }
        return bytes
    }
}
