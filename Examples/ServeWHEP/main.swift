// A test pattern served to browsers over WHEP: open http://127.0.0.1:8080/ (the built-in player page), or POST an SDP
// offer to http://127.0.0.1:8080/whep from any WHEP player. One encoder for every viewer: each new viewer and each
// PLI/FIR gets an IDR; the viewers' REMB (a browser's transport-cc, through its own controller) lowers the encoder's
// target when their path is congested, and a frame is skipped while a viewer's pacer queue is over 100 ms.
//   swift run ServeWHEP [seconds]
import Bitstream
import EncoderSession
import Glibc
import MediaIO
import RTPOut
import Synchronization
import WebRTC
import WebRTCHTTP
import WebRTCTransport


func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = Array("ServeWHEP: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(status)
}
let arguments = CommandLine.arguments.dropFirst().map { $0 }
guard let seconds = arguments.first.map({ Double($0) }) ?? 60, seconds > 0 else { fail("usage: ServeWHEP [seconds]", status: 2) }

do {
    let frames = Mutex<[EncodedFrame]>([])
    let session = try CompressionSession(
        configuration: .realTimeCommunication(width: 1280, height: 720, averageBitRate: 2_000_000),
        outputHandler: { output in if let frame = output.frame { frames.withLock { $0.append(frame) } } })
    var source = try TestPatternSource(width: 1280, height: 720, frameRate: Rational(30, 1), barcode: true)
    var buffer = source.makeBuffer()

    // The first frame says what the answers negotiate: the profile and level of its SPS, and the SPS/PPS that go in
    // front of every viewer's first IDR.
    guard let first = try source.nextFrame(into: &buffer) else { fail("no frames") }
    try session.encode(buffer, presentationTime: first, options: .init(forceKeyFrame: true))
    let firstFrames = frames.withLock { frames in defer { frames.removeAll() }; return frames }
    guard let sets = firstFrames.first?.parameterSets, let sps = sets.sequenceParameterSets.first,
          let pps = sets.pictureParameterSets.first, sps.count >= 4,
          let profile = H264Profile(profileIdc: sps[1], profileIop: sps[2]), let level = H264Level(rawValue: Int(sps[3]))
    else { fail("the encoder gave no SPS/PPS") }

    let server = try WebRTCServer(configuration: WebRTCServerConfiguration(media: WebRTCMediaConfiguration(
        bind: try SocketAddress(host: "127.0.0.1", port: 0), encoding: .h264(profile: profile, level: level),
        sequenceParameterSet: sps, pictureParameterSet: pps, bitrateCeiling: 2_000_000)))
    let http = WHEPHTTPServer(configuration: .init(host: "127.0.0.1", port: 8080), endpoint: WebRTCServerEndpoint(server))
    let port = try http.start()
    print("open http://127.0.0.1:\(port)/ (media on UDP \(server.localAddress))")

    var target = 2_000_000
    var pacer = RealTimeFramePacer(frameRate: source.frameRate)
    for frame in firstFrames { server.send(frame.accessUnit) }
    while let time = try source.nextFrame(into: &buffer), time.seconds < seconds {
        guard pacer.waitForTurn(of: time) else { continue }  // late: skipped rather than letting latency grow
        // One decision per frame: skip it while a viewer's pacer queue is too long (the queue drains, the next picture
        // is coded against the last one sent), else its target (pushed back while the queue fills), byte budget and IDR.
        let decision = server.nextFrame()
        if decision.skip { continue }
        if Int(decision.encoderTarget) != target {
            target = Int(decision.encoderTarget)
            try session.setAverageBitRate(target)
        }
        try session.encode(buffer, presentationTime: time,
                           options: .init(forceKeyFrame: decision.forceKeyframe, maxFrameBytes: decision.maxFrameBytes))
        for frame in frames.withLock({ frames in defer { frames.removeAll() }; return frames }) { server.send(frame.accessUnit) }
    }
    try session.completeFrames()
    http.stop()
    server.stop()  // RTCP BYE and DTLS close_notify to every viewer
} catch {
    fail("\(error)")
}
