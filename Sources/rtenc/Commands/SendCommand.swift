#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Bitstream
import FoundationEssentials
import RTPOut

/// `rtenc send FILE`: an existing stream to RTP without re-encoding, paced by its timestamps.
struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Packetize and send an existing .h264, .h265/.hevc or .mp4 (H.264 or H.265) stream over RTP without re-encoding.",
        discussion: "Access units leave at their presentation times (--speed scales them; --no-pacing sends as fast as possible). The SDP is written as for `stream`.\n\nWith --cc gcc there is no encoder to steer: the controller sets the pacing rate and sends its probes, and the file's own bit rate stays what it is (packets the pacer cannot send in time wait, or are dropped once the queue is full)."
    )

    @Argument(help: "An Annex-B .h264 or .h265/.hevc file, or an .mp4/.mov with an H.264 or H.265 track.")
    var file: String

    @Option(help: "The codec of an Annex-B file (h264 or avc, hevc or h265), instead of reading it from its first NAL unit; an MP4 says its own.")
    var codec: CodecArgument?

    @OptionGroup var network: NetworkOptions
    @OptionGroup(title: "Congestion control (pacing only: no encoder)") var congestion: CongestionOptions

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Frame rate of an Annex-B file, 1…240 (its access units carry no timestamps).", default: 30),
            transform: OptionNumber.integer(1...240, unit: "frames per second"))
    var fps = 30

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Playback speed: 2 sends twice as fast as real time.", default: 1),
            transform: OptionNumber.decimal(expected: "more than 0 and at most 1000") { $0 > 0 && $0 <= 1000 })
    var speed = 1.0

    @Option(parsing: .unconditional,
            help: "Bit rate used for pacing and in the SDP's sense of the stream (default: measured from the file).",
            transform: BitRate.parse)
    var bitrate: BitRate?

    @Flag(help: "Print nothing but errors and the play command.")
    var quiet = false

    func validate() throws {
        try congestion.validate(noPacing: network.noPacing)
    }

    func run() throws {
        let logger = Diagnostics.logger(quiet: quiet)
        let stop = StopSignal()
        // Read ahead only what the SDP and pacing need — the parameter sets, and up to 2 s of stream to measure its
        // bit rate — then stream the rest one access unit at a time: memory stays flat whatever the file's length.
        let reader = try EncodedFileReader.open(path: file, frameRate: Rational(fps, 1), codec: codec?.codec, command: "send")
        var readAhead: [EncodedFileReader.AccessUnit] = []
        while let unit = try reader.next(command: "send") {
            readAhead.append(unit)
            if unit.decodeTime.seconds - readAhead[0].decodeTime.seconds >= Self.readAheadSeconds { break }
        }
        guard let first = readAhead.first, let last = readAhead.last else {
            throw CLIError("send: \(file) has no access units")
        }
        guard let parameterSets = reader.parameterSets ?? Self.firstParameterSets(in: readAhead, codec: reader.codec) else {
            let names = reader.codec == .hevc ? "VPS/SPS/PPS" : "SPS/PPS"
            throw CLIError("send: \(file) has no \(names) in its first \(Int(Self.readAheadSeconds)) s")
        }
        // In `parameterSetNALUnitTypes` order: H.264 SPS, PPS; HEVC VPS, SPS, PPS.
        let (vps, sps, pps) = (parameterSets.count == 3 ? parameterSets[0] : [], parameterSets[parameterSets.count - 2], parameterSets[parameterSets.count - 1])
        let seconds = max(last.decodeTime.seconds - first.decodeTime.seconds, 1.0 / Double(fps))
        let measured = Int(Double(readAhead.reduce(0) { $0 + $1.bytes.count }) * 8 / seconds)
        // Paced at the rate the file plays at: --speed 4 needs 4 × the file's bit rate.
        let pacing = max(1, Int(Double(bitrate?.bitsPerSecond ?? measured) * speed))
        // Without --cc: nobody owns the rate, and REMB/TMMBR move the pacer by themselves (as before).
        let rate = congestion.estimates ? try congestion.rateController(ceiling: pacing, command: "send") : nil
        let sender: RTPSender
        do {
            var configuration = try network.senderConfiguration(bitsPerSecond: pacing, codec: reader.codec, command: "send")
            congestion.configure(&configuration)
            sender = try RTPSender(
                configuration: configuration,
                videoParameterSet: reader.codec == .hevc ? vps : nil, sequenceParameterSet: sps, pictureParameterSet: pps,
                onBitrateLimit: rate?.bitrateLimitHandler, onWarning: { logger.warning("\($0)") },
                onTransportFeedback: rate?.transportFeedbackHandler, onPacketsSent: rate?.packetsSentHandler)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.sockets("send: cannot open the RTP sockets", error, portOption: "--local-port (0: any free one)")
        }
        try network.writeSDP(sender.sessionDescription(videoParameterSet: vps, sequenceParameterSet: sps, pictureParameterSet: pps),
                             command: "send")
        Console.standardOutput.write(Data(("rtenc: sending \(file) to \(network.to); "
            + "SDP in \(network.sdp)\nplay it with: ffplay -protocol_whitelist \(network.playerProtocols) \(network.sdp)\n").utf8))
        if let rate { sender.setTargetBitrate(rate.allocation.pacingBitRate) }
        stop.sleep(until: MonotonicTime.now() + network.startDelay)
        let start = MonotonicTime.now()
        var sent = 0
        var pending = readAhead[...]
        while !stop.isStopped {
            guard let unit = try pending.popFirst() ?? reader.next(command: "send") else { break }
            if !network.noPacing {
                stop.sleep(until: start + (unit.decodeTime.seconds - first.decodeTime.seconds) / speed)
                if stop.isStopped { break }
            }
            rate?.apply(toSender: sender)
            do {
                try sender.send(unit)  // the reader found the NAL units already: no second scan
            } catch {
                throw CLIError("send: access unit at \(unit.presentationTime.seconds) s: \(error)")
            }
            // No encoder: each access unit is a frame whose size the file decided (a per-frame budget or skip has
            // nothing to act on), told to the controller all the same (rtenc's counts what waits in the pacer).
            rate?.handle(.encodedFrame(bytes: unit.bytes.count, isKeyframe: unit.isKeyframe))
            sent += 1
        }
        sender.close(drainTimeout: .seconds(10) + .seconds(network.byeDelay))
        let statistics = sender.statistics
        let feedback = network.feedbackSummary(statistics, controller: rate)
        logger.info("sent \(sent) access units in \(statistics.packetsSent) packets (\(statistics.bytesSent) bytes)\(feedback); BYE sent")
    }

    /// Stream read before the first packet, to find the parameter sets and measure the bit rate for pacing.
    static let readAheadSeconds = 2.0

    /// The first parameter set of each type the codec needs (H.264: SPS, PPS; HEVC: VPS, SPS, PPS), in that order.
    static func firstParameterSets(in units: [EncodedFileReader.AccessUnit], codec: VideoCodec) -> [[UInt8]]? {
        let types = codec.parameterSetNALUnitTypes
        var found: [[UInt8]?] = Array(repeating: nil, count: types.count)
        for unit in units where found.contains(where: { $0 == nil }) {
            for nal in unit.nalUnits {  // found by the reader: no scan
                if let index = types.firstIndex(of: nal.type), found[index] == nil { found[index] = Array(unit.bytes[nal.range]) }
            }
        }
        let sets = found.compactMap { $0 }
        return sets.count == types.count ? sets : nil
    }
}
