// A test pattern, encoded as H.264 and streamed as RTP to a peer on this machine, with the SDP file the peer opens.
// The peer's PLI/FIR forces a keyframe; its REMB/TMMBR moves the encoder's bit rate and the sender's pacing together.
//   swift run StreamToPeer [port] [sdp-file] [seconds]      then: ffplay -protocol_whitelist file,udp,rtp stream.sdp
import CongestionControl
import EncoderSession
import Glibc
import MediaIO
import RTPOut
import StreamControl
import Synchronization

let arguments = CommandLine.arguments.dropFirst().map { $0 }
let port = arguments.count > 0 ? UInt16(arguments[0]) : 5004
let sdpPath = arguments.count > 1 ? arguments[1] : "stream.sdp"
let seconds = arguments.count > 2 ? Double(arguments[2]) : 10
func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = Array("StreamToPeer: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(status)
}
guard let port, let seconds, seconds > 0 else { fail("usage: StreamToPeer [port] [sdp-file] [seconds]", status: 2) }

let failure = Mutex<String?>(nil)
let sdpWritten = Atomic<Bool>(false)

do {
    // The one owner of the rate: the peer's feedback in; encoder target, its cap and the pacing rate out together,
    // never above 1 Mb/s.
    let rate = LiveBitrateController(bounds: try BitrateBounds(ceiling: 1_000_000))
    let sender = try RTPSender(
        configuration: RTPSenderConfiguration(destination: try SocketAddress(host: "127.0.0.1", port: port),
                                              pacing: .paced(targetBitrate: 1_000_000)),
        onKeyframeRequest: rate.keyframeRequestHandler, onBitrateLimit: rate.bitrateLimitHandler)
    // Sending inside the output handler: the sender stamps the RTP time from the frame's presentation time and
    // learns SPS/PPS from the first keyframe, so the SDP can be written right after it.
    let session = try CompressionSession(
        configuration: .realTimeCommunication(width: 640, height: 360, averageBitRate: 1_000_000),
        outputHandler: { output in
            guard let frame = output.frame else { return }
            do {
                try sender.send(frame.accessUnit)
                if !sdpWritten.load(ordering: .relaxed), let sdp = sender.sessionDescription() {
                    try sdp.write(toFile: sdpPath)  // atomic; mode 0600 when it carries an SRTP key
                    sdpWritten.store(true, ordering: .relaxed)
                    print("SDP in \(sdpPath)")
                }
            } catch {
                failure.withLock { $0 = $0 ?? "\(error)" }
            }
        })
    var source = try TestPatternSource(width: 640, height: 360, frameRate: Rational(30, 1))
    var buffer = source.makeBuffer()
    var pacer = RealTimeFramePacer(frameRate: source.frameRate)
    while failure.withLock({ $0 == nil }), let time = try source.nextFrame(into: &buffer), time.seconds < seconds {
        guard pacer.waitForTurn(of: time) else { continue }  // late: skipped rather than letting latency grow
        let decision = try rate.apply(to: session, sender: sender)  // what the peer asked for since the last frame
        try session.encode(buffer, presentationTime: time, options: .init(forceKeyFrame: decision?.forceKeyframe ?? false))
    }
    try session.completeFrames()
    sender.close()  // drains the pacer, then RTCP SR + BYE
    if let message = failure.withLock({ $0 }) { fail(message) }
} catch {
    fail("\(error)")
}
