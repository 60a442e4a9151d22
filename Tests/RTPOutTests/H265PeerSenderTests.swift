import Foundation
import Testing
@testable import RTP
@testable import RTPOut

/// Peers' RFC 7798 packetizers into our depacketizer, on loopback: ffmpeg's RTP muxer and GStreamer's rtph265pay send
/// an x265 file; every access unit must come back as the file has it. Every process is time-bounded and stopped.
@Suite(.serialized)
struct H265PeerSenderTests {
    static let frames = 30

    /// Reads datagrams on `socket` into an HEVC depacketizer until `peer` has exited and nothing came for half a
    /// second, or `timeout` passes.
    static func receive(on socket: UDPSocket, from peer: PeerProcess, timeout: Double = 30) -> (units: [ReceivedAccessUnit], depacketizer: H265Depacketizer) {
        var depacketizer = H265Depacketizer(reorderWindow: 64)
        var units: [ReceivedAccessUnit] = []
        var datagram = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(timeout)
        var lastDatagram = Date()
        while Date() < deadline {
            let received = datagram.withUnsafeMutableBytes { try? socket.receive(into: $0) } ?? nil
            if let received, let packet = try? RTPPacket(parsing: Array(datagram[0 ..< received.count])) {
                lastDatagram = Date()
                depacketizer.push(packet, arrival: nil) { if case .accessUnit(let au) = $0 { units.append(au) } }
            } else if !peer.process.isRunning && Date().timeIntervalSince(lastDatagram) > 0.5 {
                break
            } else {
                Thread.sleep(forTimeInterval: 0.001)
            }
        }
        depacketizer.flush { if case .accessUnit(let au) = $0 { units.append(au) } }
        return (units, depacketizer)
    }

    static func setUp(in directory: URL) throws -> (file: String, accessUnits: [[ArraySlice<UInt8>]], socket: UDPSocket) {
        let bytes = try Fixtures.x265(frames: frames, gop: 10, parameters: "info=0", in: directory)
        let socket = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0), receiveBufferSize: 4 << 20)
        return (directory.appendingPathComponent("x265-320x240-\(frames).h265").path, try TestAnnexB.hevcAccessUnits(bytes), socket)
    }

    @Test func ffmpegsPacketsGiveTheFileBack() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        let (file, accessUnits, socket) = try Self.setUp(in: directory)
        let ffmpeg = try PeerProcess(Fixtures.ffmpeg, [
            "-hide_banner", "-nostdin", "-re", "-i", file, "-c", "copy", "-f", "rtp", "rtp://127.0.0.1:\(socket.localAddress.port)",
        ], outputIn: directory, name: "ffmpeg-sender")
        let (units, depacketizer) = Self.receive(on: socket, from: ffmpeg)
        ffmpeg.stop()
        #expect(units.count == accessUnits.count, "\(ffmpeg.errors.suffix(1000))")
        // ffmpeg's hevc parser leaves the first zero of the next 4-byte start code on the NAL unit before it
        // (trailing_zero_8bits, which our Annex-B splitter drops): compare without trailing zero bytes.
        let trimmed = { (unit: [UInt8]) in Array(unit.reversed().drop { $0 == 0 }.reversed()) }
        for (i, (sent, back)) in zip(accessUnits, units).enumerated() where back.nalUnits.map(trimmed) != sent.map({ Array($0) }) {
            let describe = { (units: [[UInt8]]) in units.map { "\(($0[0] >> 1) & 0x3F):\($0.count)" }.joined(separator: " ") }
            Issue.record("access unit \(i) differs: \(describe(back.nalUnits)) vs \(describe(sent.map { Array($0) }))")
            break
        }
        #expect(depacketizer.accessUnitsDropped == 0 && depacketizer.packetsLost == 0)
        #expect(units.map(\.isKeyframe) == (0 ..< Self.frames).map { $0 % 10 == 0 })
    }

    /// rtph265pay with APs (zero-latency) at a 400-byte MTU, so single, AP and FU packets all occur.
    @Test func gstreamersPacketsGiveTheSlicesBack() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        let (file, accessUnits, socket) = try Self.setUp(in: directory)
        let gst = try PeerProcess("/usr/bin/gst-launch-1.0", [
            "-q", "filesrc", "location=\(file)", "!", "h265parse", "!", "rtph265pay", "aggregate-mode=zero-latency", "mtu=400",
            "config-interval=-1", "!", "udpsink", "host=127.0.0.1", "port=\(socket.localAddress.port)", "sync=false",
        ], outputIn: directory, name: "gst-sender")
        let (units, depacketizer) = Self.receive(on: socket, from: gst)
        gst.stop()
        // h265parse and rtph265pay may add parameter sets or delimiters; the slices are what must come back whole.
        let slices = { (units: [[UInt8]]) in units.filter { ($0[0] >> 1) & 0x3F < 32 } }
        #expect(units.map { slices($0.nalUnits) } == accessUnits.map { slices($0.map(Array.init)) }, "\(gst.errors.suffix(1000))")
        #expect(depacketizer.accessUnitsDropped == 0 && depacketizer.packetsLost == 0)
    }
}
