import Testing
@testable import RTP
@testable import RTPOut

struct PacerTests {
    /// Sends `count` packets of `size` bytes as soon as the pacer allows; returns the send times.
    func drive(_ pacer: inout Pacer, count: Int, size: Int, start: RTPInstant) -> [RTPInstant] {
        var now = start
        var times: [RTPInstant] = []
        for _ in 0 ..< count {
            now = max(now, pacer.nextSendTime(now: now))
            pacer.didSend(bytes: size, now: now)
            times.append(now)
        }
        return times
    }

    @Test func spreadsAKeyframeAtTwoAndAHalfTimesTheTarget() {
        var pacer = Pacer(targetBitrate: 2_000_000)  // paces at 5 Mb/s = 625 000 B/s
        let times = drive(&pacer, count: 100, size: 1200, start: t0)  // a 120 kB IDR
        let span = (times.last! - times.first!).seconds
        // 120 kB at 625 kB/s ≈ 192 ms, minus the burst allowance (5 ms ≈ 3 kB).
        #expect(span > 0.180)
        #expect(span < 0.195)
        // No 10 ms window carries more than rate × 10 ms + burst + one packet.
        for (i, start) in times.enumerated() {
            let inWindow = times[i...].prefix { $0 - start < .milliseconds(10) }.count
            let bytes = Double(inWindow * 1200)
            let limit: Double = 625_000 * 0.010 + 3125 + 1200
            #expect(bytes <= limit)
        }
    }

    @Test func idleTimeDoesNotBankUnlimitedCredit() {
        var pacer = Pacer(targetBitrate: 2_000_000)
        _ = drive(&pacer, count: 10, size: 1200, start: t0)
        let later = t0 + .seconds(10)
        let times = drive(&pacer, count: 20, size: 1200, start: later)
        // Only the burst allowance goes at once after a long pause, then pacing resumes.
        #expect(times.filter { $0 == later }.count <= 3)
    }

    @Test func unpacedSendsEverythingNow() {
        var pacer = Pacer.unpaced
        #expect(drive(&pacer, count: 100, size: 1200, start: t0).allSatisfy { $0 == t0 })
    }

    @Test func bitrateChangeApplies() {
        var pacer = Pacer(targetBitrate: 1_000_000)
        pacer.setTargetBitrate(4_000_000)
        let times = drive(&pacer, count: 100, size: 1250, start: t0)  // 125 kB at 1.25 MB/s ≈ 100 ms
        let span: Double = (times.last! - times.first!).seconds
        #expect(abs(span - 0.1) < 0.01)
    }
}

struct SDPTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1F, 0xD9, 0x00]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    @Test func buildsTheFullOffer() {
        let sdp = SessionDescription(
            connectionAddress: "127.0.0.1", port: 5004, sequenceParameterSet: Self.sps, pictureParameterSet: Self.pps,
            feedback: [.nack, .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaximumBitrate],
            ssrc: 42, cname: "rtenc@host", sessionID: 7)
        #expect(sdp.text == """
            v=0\r
            o=- 7 1 IN IP4 127.0.0.1\r
            s=rtenc\r
            c=IN IP4 127.0.0.1\r
            t=0 0\r
            m=video 5004 RTP/AVP 96\r
            a=rtpmap:96 H264/90000\r
            a=fmtp:96 packetization-mode=1;profile-level-id=42c01f;sprop-parameter-sets=Z0LAH9kA,aM48gA==\r
            a=rtcp:5005\r
            a=rtcp-fb:96 nack\r
            a=rtcp-fb:96 nack pli\r
            a=rtcp-fb:96 ccm fir\r
            a=rtcp-fb:96 goog-remb\r
            a=ssrc:42 cname:rtenc@host\r

            """)
    }

    @Test func ipv6MuxAndRTX() {
        let sdp = SessionDescription(
            connectionAddress: "::1", port: 6000, rtcpMux: true, sequenceParameterSet: Self.sps, pictureParameterSet: Self.pps,
            ssrc: 1, cname: "c", rtx: (97, 2)).text
        #expect(sdp.contains("c=IN IP6 ::1\r\n"))
        #expect(sdp.contains("m=video 6000 RTP/AVP 96 97\r\n"))
        #expect(sdp.contains("a=rtcp-mux\r\n"))
        #expect(sdp.contains("a=fmtp:97 apt=96\r\n"))
        #expect(sdp.contains("a=ssrc-group:FID 1 2\r\n"))
    }

    @Test func parsesWhatItBuilds() throws {
        let text = SessionDescription(connectionAddress: "127.0.0.1", port: 5004, rtcpPort: 6000,
                                      sequenceParameterSet: Self.sps, pictureParameterSet: Self.pps).text
        let parsed = try ReceivedSessionDescription(parsing: text)
        #expect(parsed.connectionAddress == "127.0.0.1")
        #expect(parsed.port == 5004 && parsed.rtcpPort == 6000 && !parsed.rtcpMux)
        #expect(parsed.payloadType == 96 && parsed.packetizationMode == 1)
        #expect(parsed.parameterSets == [Self.sps, Self.pps])
    }

    @Test func parsesFFmpegStyleSDP() throws {
        // As ffmpeg -f rtp prints it (LF line ends, no sprop for live x264).
        let text = """
            v=0
            o=- 0 0 IN IP4 127.0.0.1
            s=No Name
            c=IN IP4 127.0.0.1/64
            t=0 0
            a=tool:libavformat 59.27.100
            m=video 5004 RTP/AVP 96
            a=rtpmap:96 H264/90000
            a=fmtp:96 packetization-mode=1
            """
        let parsed = try ReceivedSessionDescription(parsing: text)
        #expect(parsed.connectionAddress == "127.0.0.1")
        #expect(parsed.rtcpPort == 5005)
        #expect(parsed.parameterSets.isEmpty)
    }

    @Test(arguments: ["v=0\r\nc=IN IP4 1.2.3.4\r\n", "m=video x RTP/AVP 96\r\nc=IN IP4 1.2.3.4\r\n",
                      "c=IN IP4 1.2.3.4\r\nm=video 5 RTP/AVP 96\r\na=fmtp:96 sprop-parameter-sets=Z0L!\r\n"])
    func rejects(text: String) {
        #expect(#expect(throws: RTPError.self) { try ReceivedSessionDescription(parsing: text) }?.code == .invalidSDP)
    }

    @Test(arguments: [[UInt8](), [1], [1, 2], [1, 2, 3], [0xFF, 0xEE, 0xDD, 0xCC, 0xBB]])
    func base64RoundTrip(bytes: [UInt8]) {
        #expect(Base64.decode(Substring(Base64.encode(bytes))) == bytes)
    }
}

struct ClockStepTests {
    @Test func pacerSurvivesTheWallClockSteppingBack() {
        var pacer = Pacer(targetBitrate: 2_000_000)
        for _ in 0 ..< 50 { pacer.didSend(bytes: 1200, now: t0) }  // 60 kB of debt at t0
        let earlier = t0 - .seconds(3600)
        #expect(pacer.nextSendTime(now: earlier) == earlier)
        pacer.didSend(bytes: 1200, now: earlier)
        // From here pacing runs on the new time line: the debt drains in ≈ 0.1 s, not in an hour.
        let next = pacer.nextSendTime(now: earlier)
        #expect(next - earlier < .milliseconds(200))
    }

    @Test func keyframeThrottleAndReportsSurviveTheClockSteppingBack() throws {
        var session = RTCPSenderSession(configuration: .init(ssrc: 1, cname: "c"))
        let pli = try RTCPPacket.pictureLossIndication(.init(senderSSRC: 2, mediaSSRC: 1)).marshal()
        #expect(try session.receive(pli[...], now: t0) == [.requestKeyframe])
        #expect(try session.receive(pli[...], now: t0 - .seconds(60)) == [.requestKeyframe])
        session.rtpSent(payloadBytes: 1, rtpTimestamp: 0, captureTime: t0, now: t0)
        #expect(session.makeReportIfDue(now: t0 + .milliseconds(500)) != nil)
        #expect(session.makeReportIfDue(now: t0 - .seconds(60)) != nil)
        // Rescheduled on the new time line: at least half an interval away.
        #expect(session.makeReportIfDue(now: t0 - .seconds(60) + .milliseconds(400)) == nil)
    }
}
