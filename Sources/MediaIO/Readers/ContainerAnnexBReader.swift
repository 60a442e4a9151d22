import Bitstream

/// The H.264 video stream of any file libavformat demuxes (MP4, MOV, Matroska, MPEG-TS, FLV …), packet by packet,
/// as Annex-B bytes and without decoding. What `rtenc inspect` reads when its input is not a raw Annex-B stream.
///
/// Two framings reach here. With an avcC record as extradata (MP4, MOV, Matroska, FLV) the packets are AVCC
/// samples; they are converted as `rtenc annexb` converts them (`MP4SampleReader`'s path: Bitstream's converter,
/// the avcC's SPS and PPS put in front of every IDR that lacks them, as h264_mp4toannexb does). Otherwise
/// (MPEG-TS, raw H.264 through libavformat) the packets already are Annex-B, as they are; Annex-B extradata goes
/// in front of the first packet only when that packet carries no SPS of its own.
public final class ContainerAnnexBReader {
    public let path: String
    /// libavformat's name of the container ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "mpegts").
    public let formatName: String
    /// The avcC record when the packets are AVCC; nil when they are Annex-B.
    public let configuration: AVCDecoderConfigurationRecord?

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
        guard stream.isH264 else {
            throw .unsupported("\(path): the video stream is \(stream.codecName), not H.264")
        }
        // An avcC record starts with configurationVersion 1; Annex-B extradata starts with a start code's 0.
        if stream.extradata.first == 1 {
            do {
                configuration = try AVCDecoderConfigurationRecord(parsing: stream.extradata[...])
            } catch {
                throw .bitstream(error, "\(path): malformed avcC record")
            }
            pendingExtradata = []
        } else {
            configuration = nil
            pendingExtradata = stream.extradata
        }
        packet = try OwnedPacket()
    }

    /// The next packet of the H.264 stream as Annex-B (extradata parameter sets in front of the first), or nil at
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
            guard let configuration else {
                let bytes = packet.bytes
                defer { pendingExtradata = [] }
                // MPEG-TS repeats its parameter sets in band (libavformat copies the first ones into extradata):
                // only a first packet without an SPS gets the extradata's in front, so nothing appears twice.
                let hasSPS = ((try? AnnexB.split(bytes[...])) ?? []).contains { $0.first.map { $0 & 0x1F == 7 } ?? false }
                return hasSPS ? bytes : pendingExtradata + bytes
            }
            do {
                return try AVCC.toAnnexB(
                    packet.bytes[...], lengthSize: configuration.nalUnitLengthSize, parameterSets: configuration)
            } catch {
                throw .bitstream(error, "\(path): packet \(index) is not valid AVCC", frameIndex: index)
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
