import DTLS
import EncoderSession
import Foundation
import MediaCore
import RTPOut
import Synchronization
import Testing
import WebRTC
import WebRTCTransport

/// The publisher's I/O thread belongs to it as the server's does (`TransportCore`): the thread holds the core, never
/// the publisher, so dropping the publisher stops and joins the thread and frees the port; `stop()` joins it, may be
/// called again or from several threads at once, and from an encoder's output handler in the middle of `encode()`.
/// The thread is named `rtenc-whip-io`; these tests count such threads in /proc/self/task (the suite is serialized,
/// and no other suite makes a publisher in this process).
extension WebRTCPublisherLoopbackTests {
    /// The publisher I/O threads alive in this process.
    static func publisherThreads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.count { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.hasPrefix("rtenc-whip-io") == true
        }
    }

    /// A publisher connected to the fake server (ICE and DTLS done), with the server's socket and SRTP keys.
    static func connectedPublisher() throws -> (WebRTCPublisher, UDPSocket, SRTPSession) {
        let publisher = try Self.publisher()
        let (server, keys) = try Self.connect(publisher)
        return (publisher, server, keys)
    }

    /// Dropped without `stop()`, after `connect(answer:)` (the thread busy with ICE checks to a server that never
    /// answers): `deinit` runs, the thread is joined, the port can be bound again at once.
    @Test(.timeLimit(.minutes(1))) func aDroppedPublisherEndsItsThreadAndFreesItsPort() throws {
        #expect(Self.publisherThreads() == 0)
        weak var dropped: WebRTCPublisher?
        var port: UInt16 = 0
        do {
            let publisher = try Self.publisher()
            try publisher.connect(answer: Self.answer(port: 9, fingerprint: DTLSCertificate().fingerprint))
            usleep(50_000)  // ICE checks go out; the thread has named itself
            #expect(Self.publisherThreads() == 1)
            port = publisher.localAddress.port
            dropped = publisher
        }
        #expect(dropped == nil, "nothing else keeps the publisher alive")
        #expect(Self.publisherThreads() == 0, "deinit joined the thread")
        #expect(throws: Never.self, "the port is free again") {
            _ = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: port))
        }
        let again = try Self.publisher(port: port)
        #expect(again.localAddress.port == port)
    }

    /// `stop()` returns with the thread gone; again, and from four threads at once, it returns at once; `send` and
    /// `connect` after it do nothing.
    @Test(.timeLimit(.minutes(1))) func stopJoinsOnceAndMayBeCalledAgain() throws {
        let (publisher, server, keys) = try Self.connectedPublisher()
        #expect(Self.publisherThreads() == 1)
        #expect(publisher.takeKeyframeRequest())
        publisher.send(Self.accessUnit(keyframe: true, at: 0))
        publisher.stop()
        #expect(Self.publisherThreads() == 0, "the first stop() returns after the join")
        #expect(try rtcpTypes(Self.receive(server, timeout: .milliseconds(200)), srtp: keys).contains(203), "BYE before the end")
        let start = ContinuousClock.now
        publisher.stop()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in publisher.stop() }
        #expect(ContinuousClock.now - start < .milliseconds(100))
        publisher.send(Self.accessUnit(keyframe: true, at: 0.033))
        #expect(try Self.receive(server, timeout: .milliseconds(200)).isEmpty, "nothing is sent after the stop")
        #expect(publisher.endReason == "stopped")
        #expect(throws: WebRTCTransportError.self) { try publisher.connect(answer: Self.answer(port: 9, fingerprint: DTLSCertificate().fingerprint)) }
    }

    /// What the output handler below shares with the test: the publisher's only strong reference, and a count.
    final class HandlerState: Sendable {
        let publisher = Mutex<WebRTCPublisher?>(nil)
        let delivered = Atomic<Int>(0)
    }

    /// An embedder stops publishing from its encoder's output handler (called inside `encode()`, as libavcodec's
    /// encoders call it here) and drops its last reference to the publisher there: neither waits for anything the
    /// handler's caller holds, and the thread is gone when `encode()` returns.
    @Test(.timeLimit(.minutes(1))) func stopFromTheEncodersOutputHandlerDoesNotDeadlock() throws {
        let shared = HandlerState()
        weak var dropped: WebRTCPublisher?
        let server: UDPSocket
        let keys: SRTPSession
        do {
            let (publisher, socket, srtp) = try Self.connectedPublisher()
            #expect(publisher.takeKeyframeRequest())
            shared.publisher.withLock { $0 = publisher }
            dropped = publisher
            (server, keys) = (socket, srtp)
        }
        let session = try CompressionSession(
            configuration: .realTimeCommunication(width: 160, height: 120, averageBitRate: 300_000, encoder: .software),
            outputHandler: { output in
                guard let frame = output.frame else { return }
                let count = shared.delivered.add(1, ordering: .relaxed).newValue
                let publisher = shared.publisher.withLock { $0 }
                publisher?.send(frame.accessUnit)
                if count == 10 {
                    publisher?.stop()
                    shared.publisher.withLock { $0 = nil }  // the last reference goes with this local, on this thread
                }
            })
        defer { session.invalidate() }
        let buffer = PixelBuffer(format: .nv12, width: 160, height: 120)
        for index in 0 ..< 12 {
            try session.encode(buffer, presentationTime: MediaTime(seconds: Double(index) / 30),
                               options: .init(forceKeyFrame: index == 0), context: index)
        }
        try session.completeFrames()
        #expect(shared.delivered.load(ordering: .relaxed) == 12)
        #expect(dropped == nil, "the handler let go of the last reference")
        #expect(Self.publisherThreads() == 0)
        let media = try Self.receive(server, timeout: .milliseconds(200))
        #expect(try rtcpTypes(media, srtp: keys).contains(203), "the BYE went out before the thread ended")
    }
}
