import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

/// The in-place form of the payloaders (`payload(_:into:)`): each payload written straight into the room a caller
/// lends — the sender's queue slot — must be byte for byte what the `emit` form lends from the payloader's own
/// buffer, written inside the room and nowhere else.
struct PayloadDestinationTests {
    /// Lends one room of `roomSize` bytes per packet (filled with 0xEE so a stray write shows) and keeps what each
    /// commit said.
    struct RecordingDestination: RTPPayloadDestination {
        let roomSize: Int
        var rooms: [UnsafeMutableRawBufferPointer] = []
        var packets: [(payload: [UInt8], last: Bool)] = []
        var strayWrites = 0

        init(roomSize: Int) { self.roomSize = roomSize }

        mutating func nextPayload() -> UnsafeMutableRawBufferPointer {
            #expect(rooms.count == packets.count, "a room asked for before the previous one was committed")
            let room = UnsafeMutableRawBufferPointer.allocate(byteCount: roomSize, alignment: 8)
            room.initializeMemory(as: UInt8.self, repeating: 0xEE)
            rooms.append(room)
            return room
        }

        mutating func commitPayload(length: Int, isLast: Bool) {
            let room = rooms[packets.count]
            packets.append((Array(room[0 ..< length]), isLast))
            strayWrites += room[length...].filter { $0 != 0xEE }.count
        }

        func release() { for room in rooms { room.deallocate() } }
    }

    /// An IDR access unit with a delimiter, parameter sets, SEI, one slice to fragment and one to send alone, and a
    /// P access unit of two small slices.
    static let h264Units: [[ArraySlice<UInt8>]] = [
        [nal(0x09, size: 2), nal(0x67, size: 23), nal(0x68, size: 4), nal(0x06, size: 600), nal(0x65, size: 5000),
         nal(0x65, size: 900)],
        [nal(0x09, size: 2), nal(0x41, size: 700), nal(0x41, size: 300)],
    ]
    static let hevcUnits: [[ArraySlice<UInt8>]] = [
        [hevcNAL(35, size: 3), hevcNAL(32, size: 24), hevcNAL(33, size: 40), hevcNAL(34, size: 6), hevcNAL(39, size: 600),
         hevcNAL(19, size: 5000), hevcNAL(19, size: 900)],
        [hevcNAL(1, size: 700), hevcNAL(1, size: 300)],
    ]

    static func compare(_ payloader: some RTPPayloader, _ units: [ArraySlice<UInt8>], _ name: String) throws {
        var emitted: [(payload: [UInt8], last: Bool)] = []
        try payloader.payload(units) { packet, last in emitted.append((Array(packet[payloader.headroom...]), last)) }
        var destination = RecordingDestination(roomSize: payloader.maxPayloadSize)
        defer { destination.release() }
        try payloader.payload(units, into: &destination)
        #expect(destination.packets.map(\.payload) == emitted.map(\.payload), "\(name)")
        #expect(destination.packets.map(\.last) == emitted.map(\.last), "\(name)")
        #expect(destination.strayWrites == 0, "\(name)")
        #expect(emitted.count > 1, "\(name)")
    }

    @Test(arguments: [
        ("H.264 mode 1, zero-latency STAP-A", H264PayloaderConfiguration()),
        ("H.264 mode 1, no aggregation", H264PayloaderConfiguration(aggregation: .none)),
        ("H.264 mode 1, greedy STAP-A, 600-byte payloads", H264PayloaderConfiguration(aggregation: .max, maxPayloadSize: 600)),
    ])
    func h264InPlaceIsTheEmittedPayloads(name: String, configuration: H264PayloaderConfiguration) throws {
        let payloader = try H264Payloader(configuration: configuration, headroom: 16)
        for units in Self.h264Units { try Self.compare(payloader, units, name) }
    }

    @Test func h264SingleNALUnitModeInPlace() throws {
        let payloader = try H264Payloader(configuration: .init(packetizationMode: .singleNALUnit))
        try Self.compare(payloader, Self.h264Units[1], "mode 0")
        var destination = RecordingDestination(roomSize: payloader.maxPayloadSize)
        defer { destination.release() }
        let error = #expect(throws: RTPError.self) { try payloader.payload(Self.h264Units[0], into: &destination) }
        #expect(error?.code == .nalUnitTooLarge)
    }

    @Test(arguments: [
        ("H.265 zero-latency AP", H265PayloaderConfiguration()),
        ("H.265 no aggregation", H265PayloaderConfiguration(aggregation: .none)),
        ("H.265 greedy AP, 600-byte payloads", H265PayloaderConfiguration(aggregation: .max, maxPayloadSize: 600)),
    ])
    func h265InPlaceIsTheEmittedPayloads(name: String, configuration: H265PayloaderConfiguration) throws {
        let payloader = try H265Payloader(configuration: configuration)
        for units in Self.hevcUnits { try Self.compare(payloader, units, name) }
    }

    /// Parameter sets inserted before an IDR that lacks them are written in place like any NAL unit.
    @Test func insertedParameterSetsInPlace() throws {
        let payloader = try H264Payloader(sequenceParameterSet: Array(nal(0x67, size: 23)), pictureParameterSet: Array(nal(0x68, size: 4)))
        var destination = RecordingDestination(roomSize: payloader.maxPayloadSize)
        defer { destination.release() }
        try payloader.payload([nal(0x65, size: 100)], into: &destination)
        #expect(destination.packets.count == 1)
        #expect(destination.packets.first?.payload.first == 0x78)  // STAP-A: SPS + PPS + IDR
        let stapA = 1 + (2 + 23) + (2 + 4) + (2 + 100)  // header, then size + NAL unit for SPS, PPS, IDR
        #expect(destination.packets.first?.payload.count == stapA)
    }

    /// A payloader with only the `emit` form still works in place, through the protocol's copying default.
    @Test func emitOnlyPayloaderIsCopiedIntoTheDestination() throws {
        let payloader = PayloaderSeamTests.TwoByteHeaderPayloader()
        try Self.compare(payloader, [hevcNAL(32, size: 20), hevcNAL(19, size: 1000)], "copying default")
    }

    /// …and one that breaks its own maximum is refused, not written past the room.
    final class OversizedPayloader: RTPPayloader {
        let codec = VideoCodec.h264
        let clockRate: Int64 = 90_000
        let headroom = RTPHeader.fixedSize
        let maxPayloadSize = 100
        private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: RTPHeader.fixedSize + 300, alignment: 8)
        deinit { buffer.deallocate() }

        func payload(_ nalUnits: [ArraySlice<UInt8>], emit: (UnsafeMutableRawBufferPointer, Bool) -> Void) throws(RTPError) {
            emit(UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< headroom + 50]), false)
            emit(UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< headroom + 300]), false)
            emit(UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< headroom + 50]), true)
        }
    }

    @Test func oversizedPayloadIsAnError() throws {
        var destination = RecordingDestination(roomSize: 100)
        defer { destination.release() }
        let error = #expect(throws: RTPError.self) { try OversizedPayloader().payload([nal(0x41, size: 10)], into: &destination) }
        #expect(error?.code == .invalidValue)
        #expect(destination.packets.count == 1 && destination.strayWrites == 0)
    }

    /// Lends whole packets, as the sender's queue does.
    struct PacketRecorder: RTPPacketDestination {
        let room = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 8)
        var packets: [[UInt8]] = []
        var sequenceNumbers: [UInt16] = []

        mutating func nextPacket() -> UnsafeMutableRawBufferPointer { room }

        mutating func commitPacket(length: Int, sequenceNumber: UInt16, marker: Bool) {
            packets.append(Array(room[0 ..< length]))
            sequenceNumbers.append(sequenceNumber)
        }
    }

    /// The packetizer's in-place form writes the same packets as its callback form, header in front of the payload,
    /// and keeps the one sequence.
    @Test func packetizerInPlaceMatchesTheCallbackForm() throws {
        let packetizer = try H264Packetizer(payloader: H264Payloader(), payloadType: 96, ssrc: 0x1234_5678,
                                            sequencer: RTPSequencer(initial: 65534))
        var viaCallback: [[UInt8]] = []
        try packetizer.packetize(Self.h264Units[0], timestamp: 3000) { packet, _, _ in viaCallback.append(Array(packet)) }
        let next = packetizer.sequencer.nextSequenceNumber
        packetizer.sequencer = RTPSequencer(initial: 65534)
        var recorder = PacketRecorder()
        defer { recorder.room.deallocate() }
        try packetizer.packetize(Self.h264Units[0], timestamp: 3000, into: &recorder)
        #expect(recorder.packets == viaCallback)
        #expect(recorder.sequenceNumbers.first == 65534 && recorder.sequenceNumbers.count == viaCallback.count)
        #expect(packetizer.sequencer.nextSequenceNumber == next)
    }
}
