import Benchmark
import Bitstream
import RTPOut

// RTP hot paths. Malloc counts are the stable metric (thresholds in bench/Thresholds, checked by `make bench`);
// times are for the ratios in BENCHMARKS.md. Names carrying "(N packets)" let micro_report.py give per-packet
// figures (allocations per packet, packets per second).
let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .mallocCountTotal, .wallClock],
        warmupIterations: 10,
        maxDuration: .seconds(2)
    )
    let packetCount = Workload.packets.count

    // One iteration = one second of video through a payloader that lives across iterations, as in a stream: after
    // the warm-up its buffers have their final capacity, so the malloc count is the steady state's.
    Benchmark(thresholdSafe("H.264 payloader, 1 s of 720p30 (\(packetCount) packets)"), configuration: configuration) { benchmark in
        let payloader = try! H264Payloader()
        var bytes = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for unit in Workload.accessUnitSlices {
                try! payloader.payload(unit) { packet, _ in bytes &+= packet.count }
            }
        }
        benchmark.stopMeasurement()
        blackHole(bytes)
    }

    // The same for RFC 7798: one second of HEVC through a long-lived H265Payloader (the same buffer contract).
    let hevcPacketCount = Workload.hevcAccessUnitSlices.reduce(0) { count, unit in
        var packets = 0
        try! H265Payloader().payload(unit) { _, _ in packets += 1 }
        return count + packets
    }
    Benchmark(thresholdSafe("H.265 payloader, 1 s of 720p30 (\(hevcPacketCount) packets)"), configuration: configuration) { benchmark in
        let payloader = try! H265Payloader()
        var bytes = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for unit in Workload.hevcAccessUnitSlices {
                try! payloader.payload(unit) { packet, _ in bytes &+= packet.count }
            }
        }
        benchmark.stopMeasurement()
        blackHole(bytes)
    }

    Benchmark(thresholdSafe("RTP packetizer (payloader + RTP header), 1 s of 720p30 (\(packetCount) packets)"),
              configuration: configuration) { benchmark in
        let packetizer = try! H264Packetizer(payloader: try! H264Payloader(), payloadType: 96, ssrc: 0x1234_5678)
        var bytes = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for (index, unit) in Workload.accessUnitSlices.enumerated() {
                try! packetizer.packetize(unit, timestamp: UInt32(index * 3000)) { packet, _, _ in bytes &+= packet.count }
            }
        }
        benchmark.stopMeasurement()
        blackHole(bytes)
    }

    // The whole sans-IO send path as a driver runs it: enqueue each access unit (timestamp from its media time, NAL
    // units where the producer found them), then pollTransmit / didTransmit until the queue is empty (the views a
    // driver would hand to sendmmsg; history, RTCP counters, statistics). Unpaced, so one iteration is one second of
    // video whatever the clock; the SR schedule is set far out (a report allocates its compound once a second).
    // The benchmark closure runs once per iteration, so each iteration has a new session: it is primed with the IDR
    // before the measurement, as a stream is after its first frame. Unprimed, the first IDR costs 2 mallocs — the
    // payloader's copies of SPS and PPS (`ParameterSetMemory.remember`), once per session, not per packet; they did
    // not show in the payloader benchmark only because `Array(slice)` of a slice spanning its whole array, as that
    // workload's NAL units are, shares the array's storage instead of copying.
    Benchmark(thresholdSafe("RTPSendSession enqueue + pollTransmit + didTransmit, 1 s of 720p30 (\(packetCount) packets)"),
              configuration: configuration) { benchmark in
        runSendSession(benchmark, .init(ssrc: 0x1234_5678, pacing: .unpaced, reportInterval: .seconds(86_400)))
    }

    // The same with transport-wide congestion control on (issue 17): every packet carries the transport-wide
    // sequence number and abs-send-time, stamped at pollTransmit, and didTransmit records it for feedback. Must stay
    // at 0 mallocs per packet like the path without.
    Benchmark(thresholdSafe("RTPSendSession with transport-cc + abs-send-time, 1 s of 720p30 (\(packetCount) packets)"),
              configuration: configuration) { benchmark in
        var sessionConfiguration = RTPSendSession.Configuration(ssrc: 0x1234_5678, pacing: .unpaced, reportInterval: .seconds(86_400))
        sessionConfiguration.headerExtensions = RTPSendHeaderExtensions(transportSequenceNumberID: 3, absoluteSendTimeID: 2)
        runSendSession(benchmark, sessionConfiguration)
    }

    // The sent-packet path a live controller reads (issue 17, `--cc gcc|rtenc`): the same, and after each frame the
    // packets that left are polled into a buffer that keeps its capacity, as `SentPacketOutbox` does. Must stay at
    // 0 mallocs per packet.
    Benchmark(thresholdSafe("RTPSendSession with transport-cc, sent packets polled, 1 s of 720p30 (\(packetCount) packets)"),
              configuration: configuration) { benchmark in
        var sessionConfiguration = RTPSendSession.Configuration(ssrc: 0x1234_5678, pacing: .unpaced, reportInterval: .seconds(86_400))
        sessionConfiguration.headerExtensions = RTPSendHeaderExtensions(transportSequenceNumberID: 3, absoluteSendTimeID: 2)
        var sent: [SentPacket] = []
        sent.reserveCapacity(1024)
        var count = 0
        runSendSession(benchmark, sessionConfiguration) { session in
            session.pollSentPackets(into: &sent)
            count &+= sent.count
            sent.removeAll(keepingCapacity: true)
        }
        blackHole(count)
    }

    // The receive path: parse each datagram, depacketize, get Annex-B access units. A fresh depacketizer per
    // iteration (the same sequence numbers again would be duplicates to a long-lived one).
    Benchmark(thresholdSafe("RTP parse + H.264 depacketizer, 1 s of 720p30 (\(packetCount) packets)"),
              configuration: configuration) { benchmark in
        var units = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            var depacketizer = H264Depacketizer()
            for bytes in Workload.packets {
                let packet = try! RTPPacket(parsing: bytes[...])
                depacketizer.push(packet) { if case .accessUnit = $0 { units &+= 1 } }
            }
            depacketizer.flush { if case .accessUnit = $0 { units &+= 1 } }
        }
        benchmark.stopMeasurement()
        blackHole(units)
    }

    for (name, packets, bytes) in [("SR+RR+SDES", Workload.reports, Workload.reportBytes),
                                   ("RR+SDES+PLI+NACK+REMB", Workload.feedback, Workload.feedbackBytes)] {
        Benchmark(thresholdSafe("RTCP compound build, \(name) (\(bytes.count) bytes)"), configuration: configuration) { benchmark in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 8)
            defer { buffer.deallocate() }
            var written = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                written &+= try! RTCPCompound.marshal(packets, into: buffer)
            }
            benchmark.stopMeasurement()
            blackHole(written)
        }

        Benchmark(thresholdSafe("RTCP compound parse, \(name) (\(bytes.count) bytes)"), configuration: configuration) { benchmark in
            let input = bytes[...]
            for _ in benchmark.scaledIterations {
                blackHole(try! RTCPCompound.parse(input))
            }
        }
    }

    for (name, sps) in [("x264 constrained baseline 720p", Workload.baselineSPS),
                        ("x264 high 720p", Workload.highSPS)] {
        Benchmark(thresholdSafe("SPS parse, \(name)"), configuration: configuration) { benchmark in
            let nalUnit = sps[...]
            for _ in benchmark.scaledIterations {
                blackHole(try! H264.SequenceParameterSet(nalUnit: nalUnit))
            }
        }
    }
}

/// Benchmark names with underscores for spaces: `thresholds update` writes a threshold file under the name with
/// spaces (and slashes) replaced by underscores, but `thresholds check` looks for the raw name (ordo-one/benchmark
/// issues #301, #373), so a name with spaces never finds its thresholds. micro_report.py turns them back.
func thresholdSafe(_ title: String) -> String {
    String(title.map { $0 == " " || $0 == "/" ? "_" : $0 })
}

/// One iteration of the send-session benchmarks: a session primed with the IDR, then 1 s of video enqueued and
/// drained through pollTransmit / didTransmit, measured.
/// `afterFrame` runs after each access unit is out (a driver's per-frame work, such as taking the sent packets).
private func runSendSession(_ benchmark: Benchmark, _ sessionConfiguration: RTPSendSession.Configuration,
                            afterFrame: (inout RTPSendSession) -> Void = { _ in }) {
    var session = try! RTPSendSession(configuration: sessionConfiguration)
    var now = RTPInstant(secondsSinceEpoch: 1_800_000_000)
    var bytes = 0
    try! session.enqueue(Workload.codedAccessUnits[0], captureTime: now, at: now)
    while let transmit = session.pollTransmit(at: now) { session.didTransmit(transmit.count, at: now) }
    afterFrame(&session)
    now = now + .milliseconds(33)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        for unit in Workload.codedAccessUnits {
            try! session.enqueue(unit, captureTime: now, at: now)
            while let transmit = session.pollTransmit(at: now) {
                for datagram in transmit.datagrams { bytes &+= datagram.count }
                session.didTransmit(transmit.count, at: now)
            }
            afterFrame(&session)
            now = now + .milliseconds(33)
        }
    }
    benchmark.stopMeasurement()
    blackHole(bytes)
}
