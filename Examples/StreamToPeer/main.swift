// A test pattern, encoded as H.264 and streamed as RTP to a peer on this machine, with the SDP file the peer opens.
// The peer's PLI/FIR forces a keyframe; its REMB/TMMBR moves the encoder's bit rate (the sender's pacing follows).
//   swift run StreamToPeer [port] [sdp-file] [seconds]      then: ffplay -protocol_whitelist file,udp,rtp stream.sdp
import EncoderSession
import Glibc
import MediaIO
import RTPOut
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

let keyframeWanted = Atomic<Bool>(false)
let peerLimit = Atomic<Int>(0)  // bits/s the peer asked for; 0 = no new request
let failure = Mutex<String?>(nil)
let sdpWritten = Atomic<Bool>(false)

do {
    let sender = try RTPSender(
        configuration: RTPSenderConfiguration(destination: try SocketAddress(host: "127.0.0.1", port: port),
                                              pacing: .paced(targetBitrate: 1_000_000)),
        onKeyframeRequest: { keyframeWanted.store(true, ordering: .relaxed) },
        onBitrateLimit: { peerLimit.store(Int($0), ordering: .relaxed) })
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
        let limit = peerLimit.exchange(0, ordering: .relaxed)
        if limit > 0 { try session.setAverageBitRate(min(limit, 1_000_000)) }  // target and hard cap together
        let forceKeyFrame = keyframeWanted.exchange(false, ordering: .relaxed)
        try session.encode(buffer, presentationTime: time, options: .init(forceKeyFrame: forceKeyFrame))
    }
    try session.completeFrames()
    sender.close()  // drains the pacer, then RTCP SR + BYE
    if let message = failure.withLock({ $0 }) { fail(message) }
} catch {
    fail("\(error)")
}
