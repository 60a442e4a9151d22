#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Bitstream
import FoundationEssentials
import RTPOut

/// `rtenc packetize FILE`: the RTP packets `send` would produce, as JSON, for people debugging streams.
struct PacketizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "packetize",
        abstract: "Print the RTP packets an H.264 or H.265 file would be sent as (RFC 6184, RFC 7798), as JSON lines.",
        discussion: "One JSON object per packet: access_unit, sequence, timestamp, marker, size, payload (H.264: single, STAP-A, FU-A; H.265: single, AP, FU), fu_start/fu_end, nal_types and nal_sizes."
    )

    @Argument(help: "An Annex-B .h264 or .h265/.hevc file, or an .mp4/.mov with an H.264 or H.265 track.")
    var file: String

    @Option(help: "The codec of an Annex-B file (h264 or avc, hevc or h265), instead of reading it from its first NAL unit; an MP4 says its own.")
    var codec: CodecArgument?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Maximum RTP payload size in bytes.", default: H264PayloaderConfiguration.defaultMaxPayloadSize),
            transform: NetworkOptions.mtuParser)
    var mtu = H264PayloaderConfiguration.defaultMaxPayloadSize

    @Option(parsing: .unconditional,
            help: ArgumentHelp("RFC 6184 packetization-mode: 0 or 1.", default: 1), transform: NetworkOptions.modeParser)
    var mode = 1

    @Option(help: "STAP-A aggregation.")
    var aggregation = NetworkOptions.AggregationArgument.zeroLatency

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Frame rate of an Annex-B file, 1…240.", default: 30),
            transform: OptionNumber.integer(1...240, unit: "frames per second"))
    var fps = 30

    struct PacketLine: Encodable {
        var accessUnit: Int
        var sequence: UInt16
        var timestamp: UInt32
        var marker: Bool
        var size: Int
        var payload: String
        var fuStart: Bool?
        var fuEnd: Bool?
        var nalTypes: [UInt8]
        var nalSizes: [Int]

        enum CodingKeys: String, CodingKey {
            case sequence, timestamp, marker, size, payload
            case accessUnit = "access_unit"
            case fuStart = "fu_start"
            case fuEnd = "fu_end"
            case nalTypes = "nal_types"
            case nalSizes = "nal_sizes"
        }
    }

    func run() throws {
        let reader = try EncodedFileReader.open(path: file, frameRate: Rational(fps, 1), codec: codec?.codec, command: "packetize")
        let parameterSets = reader.parameterSets  // an MP4's avcC: SPS, PPS
        let payloader: any RTPPayloader
        do {
            payloader = try RTPSendSession.makePayloader(
                RTPSendSession.Configuration(
                    ssrc: 0x5254_454E,
                    payloader: H264PayloaderConfiguration(packetizationMode: mode == 0 ? .singleNALUnit : .nonInterleaved,
                                                          aggregation: aggregation.aggregation, maxPayloadSize: mtu),
                    codec: reader.codec),
                videoParameterSet: nil, sequenceParameterSet: parameterSets?.first, pictureParameterSet: parameterSets?.last)
        } catch {
            throw CLIError("packetize: \(error)")
        }
        try packetizeAll(payloader, reader: reader)
    }

    /// Every access unit of `reader` through `payloader` (the concrete type, so the packetizer is specialized).
    private func packetizeAll<Payloader: RTPPayloader>(_ payloader: Payloader, reader: EncodedFileReader) throws {
        let packetizer: RTPPacketizer<Payloader>
        do {
            packetizer = try RTPPacketizer(payloader: payloader, payloadType: 96, ssrc: 0x5254_454E, sequencer: RTPSequencer(initial: 0))
        } catch {
            throw CLIError("packetize: \(error)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var index = 0
        var output = Data()
        while let unit = try reader.next(command: "packetize") {
            let nalUnits = unit.nalUnitBytes  // found by the reader
            var lines: [PacketLine] = []
            var failure: RTPError?
            do {
                try packetizer.packetize(nalUnits, timestamp: RTPClock.timestamp(unit.presentationTime)) { packet, sequence, marker in
                    do throws(RTPError) {
                        lines.append(try Self.describe(packet, codec: reader.codec, accessUnit: index, sequence: sequence, marker: marker))
                    } catch {
                        failure = error
                    }
                }
            } catch {
                throw CLIError("packetize: \(file): access unit \(index): \(error)")
            }
            if let failure { throw CLIError("packetize: our own packet does not parse: \(failure)") }
            for line in lines {
                output.append(try encoder.encode(line))
                output.append(0x0A)
            }
            if output.count > 1 << 16 {
                Console.standardOutput.write(output)
                output.removeAll(keepingCapacity: true)
            }
            index += 1
        }
        Console.standardOutput.write(output)
        guard index > 0 else { throw CLIError("packetize: \(file) has no access units") }
    }

    /// One packet as a line; the payload structure named as its RFC does (RFC 6184 §5.2: single, STAP-A, FU-A;
    /// RFC 7798 §4.4: single, AP, FU).
    static func describe(_ packet: UnsafeRawBufferPointer, codec: VideoCodec = .h264, accessUnit: Int, sequence: UInt16, marker: Bool)
        throws(RTPError) -> PacketLine {
        let parsed = try RTPPacket(parsing: [UInt8](packet))
        var line = PacketLine(accessUnit: accessUnit, sequence: sequence, timestamp: parsed.header.timestamp,
                              marker: marker, size: packet.count, payload: "", nalTypes: [], nalSizes: [])
        let content = codec == .hevc ? try H265PayloadFormat.content(of: parsed.payload) : try H264PayloadFormat.content(of: parsed.payload)
        let type = { (nal: ArraySlice<UInt8>) in codec.nalUnitType(firstByte: nal[nal.startIndex]) }
        switch content {
        case .single(let nal):
            line.payload = "single"
            line.nalTypes = [type(nal)]
            line.nalSizes = [nal.count]
        case .aggregate(let nals):
            line.payload = codec == .hevc ? "AP" : "STAP-A"
            line.nalTypes = nals.map(type)
            line.nalSizes = nals.map(\.count)
        case .fragment(let header, let start, let end, let data):
            line.payload = codec == .hevc ? "FU" : "FU-A"
            line.fuStart = start
            line.fuEnd = end
            line.nalTypes = [codec.nalUnitType(firstByte: header.first)]
            line.nalSizes = [data.count]
        }
        return line
    }
}
