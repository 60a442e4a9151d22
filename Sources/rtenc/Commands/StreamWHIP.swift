import FoundationEssentials
import Logging
import RTPOut
import WHIPClient
import WebRTCTransport

/// `rtenc stream [INPUT] --whip URL`: the encoder published to a WebRTC server over WHIP (RFC 9725) instead of plain
/// RTP — rtenc offers, POSTs, runs full ICE as the controlling agent and DTLS as the answer says, sends SRTP, and
/// DELETEs its resource when it stops (Ctrl-C, --duration, --frames, the input's end, or the session lost).
extension StreamCommand {
    func publishOverWHIP(to url: String) throws {
        let logger = Diagnostics.logger(quiet: quiet)
        let stop = StopSignal()
        let client: WHIPClient
        do {
            client = try WHIPClient(url: url, bearerToken: whipToken, configuration: .init(caFile: whipCaFile))
        } catch where error.code == .badCAFile {
            throw CLIError("stream: --whip-ca-file \(error)")
        } catch {
            throw CLIError("stream: --whip: \(error)")
        }
        var loop = try WebRTCEncodeLoop(command: "stream", input: input, encoder: encoder)
        defer { loop.session.invalidate() }

        // Our host candidate: the address the kernel sends from towards the server (no packet leaves for this).
        let server = try HostResolver.resolve(Endpoint(host: client.endpoint.host, port: 1), command: "stream")
        let local = try LocalRoute.sourceAddress(toward: server, command: "stream")
        let publisher: WebRTCPublisher
        do {
            // --cc gcc|rtenc: offered beside REMB; the server's answer decides which runs.
            var configuration = WebRTCPublisherConfiguration(media: WebRTCMediaConfiguration(
                bind: local, encoding: loop.encoding, sequenceParameterSet: loop.sequenceParameterSet,
                pictureParameterSet: loop.pictureParameterSet, videoParameterSet: loop.videoParameterSet,
                bitrateCeiling: UInt64(encoder.bitrate.bitsPerSecond),
                congestionController: congestion.estimates ? congestion.cc : nil))
            configuration.immediatePlayout = !smoothPlayout  // playout-delay 0/0 offered, as `serve` answers it
            publisher = try WebRTCPublisher(configuration: configuration)
        } catch {
            throw CLIError("stream: \(error.reason)")
        }
        defer { publisher.stop() }
        let session: WHIPClient.Session
        do {
            session = try client.publish(offer: publisher.offer)
        } catch where error.code == .refused {
            throw CLIError("stream: the WHIP server \(url) refused the offer: \(error)\(otherCodecHint)")
        } catch {
            throw CLIError("stream: WHIP \(url): \(error)")
        }
        do {
            for warning in try publisher.connect(answer: session.answer) { logger.warning("WHIP answer: \(warning)") }
        } catch where error.code == .codecRefused {
            delete(session, with: client, logger: logger)
            throw CLIError("stream: the WHIP server \(url) does not take our \(loop.encoding.encodingName) as offered: "
                           + "\(error.reason)\(otherCodecHint)")
        } catch {
            delete(session, with: client, logger: logger)
            throw CLIError("stream: WHIP server \(url) answered what rtenc cannot use: \(error.reason)")
        }
        // Unbuffered: a script waiting for this line sees it before media flows.
        Console.standardOutput.write(Data(("rtenc: publishing \(input.input) \(loop.width)x\(loop.height) at "
            + "\(Int(loop.frameRate.rounded())) fps, \(encoder.bitrate.kilobitsPerSecond) kb/s over WHIP to \(url) "
            + "(resource \(session.resource); media from UDP \(publisher.localAddress))\n").utf8))
        logger.info("encoder: \(loop.session.encoderInUse)")

        let statsFile = try statsJson.map { try LinesFileWriter(path: $0) }
        let run: (frames: Int, keyframes: Int)
        do {
            run = try loop.run(to: publisher, duration: duration, stop: stop, statsFile: statsFile, logger: logger,
                               isOver: { publisher.endReason != nil }) { elapsed, state in
                ServeStatisticsLine(time: elapsed, encoder: state, viewers: publisher.statistics().map { [$0] } ?? [])
            }
        } catch {
            publisher.stop()
            delete(session, with: client, logger: logger)
            throw error
        }
        let ended = publisher.endReason
        publisher.stop()  // RTCP BYE and DTLS close_notify, then the DELETE
        for line in publisher.takeLog() { logger.info("\(line)") }
        try statsFile?.close()
        delete(session, with: client, logger: logger)
        if let ended, ended != "stopped" { throw CLIError("stream: publishing over WHIP to \(url) ended: \(ended)") }
        logger.info("published \(run.frames) frames (\(run.keyframes) keyframes) over WHIP")
    }

    /// What a refusal of our codec adds: the offer carries the encoder's codec only (`WHIPOffer`), so the other
    /// `--codec` is the thing to try. A server that refuses an H.264 offer is refusing more than the codec.
    private var otherCodecHint: String {
        encoder.codec.codec == .hevc ? "; rtenc offered H.265 only (--codec hevc): --codec h264 publishes H.264" : ""
    }

    /// DELETE the session's resource (RFC 9725 §4.2), bounded by the client's timeout; a failure is a warning: the
    /// media has stopped either way, and the server's consent check ends the session on its side.
    private func delete(_ session: WHIPClient.Session, with client: WHIPClient, logger: Logger) {
        do {
            let status = try client.delete(session)
            logger.info("DELETE \(session.resource): \(status)")
        } catch {
            logger.warning("DELETE \(session.resource) failed: \(error)")
        }
    }
}
