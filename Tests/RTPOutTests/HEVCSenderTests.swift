import Bitstream
import Foundation
import Testing
@testable import RTP
@testable import RTPOut

/// `RTPSender` with `codec: .hevc` over a real (loopback) socket: the SDP from the VPS/SPS/PPS its payloader saw,
/// with the SPS's profile, tier and level, and what a receiver reads back from it; another codec's access unit is
/// refused.
@Suite(.serialized)
struct HEVCSenderTests {
    /// Parameter sets x265 (ultrafast, zerolatency, 640x360, Main, level 2.1) wrote through `rtenc stream --codec hevc`,
    /// as its SDP carried them.
    static let x265VPS = Array(Data(base64Encoded: "QAEMAf//AWAAAAMAkAAAAwAAAwA/ugJA")!)
    static let x265SPS = Array(Data(base64Encoded: "QgEBAWAAAAMAkAAAAwAAAwA/oAUCAWllupJMrmgIAAAfQAADqYBA")!)
    static let x265PPS = Array(Data(base64Encoded: "RAHBcrRiQA==")!)

    static func accessUnit(_ units: [[UInt8]], isKeyframe: Bool, frame: Int64) -> CodedAccessUnit {
        CodedAccessUnit(joiningAnnexB: units, codec: .hevc, isKeyframe: isKeyframe,
                        presentationTime: MediaTime(value: frame, timescale: 30))
    }

    @Test func sdpComesFromTheFirstIRAPsParameterSets() throws {
        let sink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let sender = try RTPSender(configuration: .init(destination: sink.localAddress, pacing: .unpaced, codec: .hevc))
        defer { sender.close(drainTimeout: .zero) }
        #expect(sender.sessionDescription() == nil, "nothing seen yet")
        try sender.send(Self.accessUnit([Array(hevcNAL(1, size: 80))], isKeyframe: false, frame: 0))
        #expect(sender.sessionDescription() == nil, "a trailing picture carries no parameter sets")
        try sender.send(Self.accessUnit([Self.x265VPS, Self.x265SPS, Self.x265PPS, Array(hevcNAL(19, size: 2000))],
                                        isKeyframe: true, frame: 1))
        let sdp = try #require(sender.sessionDescription())
        #expect(sdp.codec == .hevc)
        #expect(sdp.text.contains("a=rtpmap:96 H265/90000"))
        #expect(sdp.text.contains("profile-id=1;tier-flag=0;level-id=63;"), "\(sdp.text)")
        let offer = try ReceivedSessionDescription(parsing: sdp.text)
        #expect(offer.codec == .hevc)
        #expect(offer.parameterSets == [Self.x265VPS, Self.x265SPS, Self.x265PPS])
        #expect(offer.hevc == HEVCFormatParameters(profileID: 1, tierFlag: 0, levelID: 63))
        let statistics = sender.statistics
        #expect(statistics.keyframesSent == 1 && statistics.accessUnitsSent == 2)
        #expect { try sender.send(CodedAccessUnitSendTests.lengthPrefixed([nal(0x41, size: 50)], isKeyframe: false, at: .zero)) }
            throws: { ($0 as? RTPError)?.code == .unsupported }
    }

    /// Given at creation, the parameter sets make the SDP at once; bare NAL units (`send(accessUnit:rtpTimestamp:)`)
    /// are counted as a keyframe by HEVC's IRAP types (a CRA here), not H.264's IDR.
    @Test func givenParameterSetsAndAnIRAPFoundInBareNALUnits() throws {
        let sink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let sender = try RTPSender(configuration: .init(destination: sink.localAddress, pacing: .unpaced, codec: .hevc),
                                   videoParameterSet: Self.x265VPS, sequenceParameterSet: Self.x265SPS,
                                   pictureParameterSet: Self.x265PPS)
        defer { sender.close(drainTimeout: .zero) }
        let sdp = try #require(sender.sessionDescription(), "given at creation")
        #expect(try ReceivedSessionDescription(parsing: sdp.text).parameterSets == [Self.x265VPS, Self.x265SPS, Self.x265PPS])
        try sender.send(accessUnit: [hevcNAL(21, size: 300)], rtpTimestamp: 3000)
        try sender.send(accessUnit: [hevcNAL(1, size: 100)], rtpTimestamp: 6000)
        #expect(sender.statistics.keyframesSent == 1)
    }
}
