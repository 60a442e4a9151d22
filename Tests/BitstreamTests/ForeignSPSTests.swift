import Bitstream
import Foundation
import TestSupport
import Testing

/// SPSs from OpenH264 and from peers' test vectors (`ForeignParameterSets`), parsed and compared with ffprobe; and
/// the same SPSs with their VUI cut short, which FFmpeg reads with an "Overread VUI" warning.
@Suite struct ForeignSPSTests {
    @Test(arguments: ForeignParameterSets.fixtures)
    func fieldsMatchFFprobe(_ fixture: ForeignParameterSets.Fixture) throws {
        let sps = try H264.SequenceParameterSet(nalUnit: fixture.bytes[...])
        #expect(sps.width == fixture.width)
        #expect(sps.height == fixture.height)
        #expect(sps.profile?.rawValue == fixture.profile)
        #expect(Int(sps.levelIdc) == fixture.level)
        if let fps = fixture.fps {
            #expect(sps.fps == fps)
        }
        #expect(sps.warnings.map(\.code.name) == fixture.warnings, "\(sps.warnings)")
        #expect(sps.vuiTruncated == fixture.warnings.contains("truncated"))
        if fixture.name.hasPrefix("openh264") {
            // The refusal: kept now, and named in the warnings.
            let vui = try #require(sps.vuiParameters)
            #expect(vui.log2MaxMvLengthHorizontal == 16)
            #expect(vui.log2MaxMvLengthVertical == 16)
            #expect(sps.warnings.map(\.syntaxElement) == ["log2_max_mv_length_horizontal", "log2_max_mv_length_vertical"])
            var sets = H264.ParameterSets()
            try sets.update(nalUnit: fixture.bytes[...])
            try sets.update(nalUnit: ForeignParameterSets.openH264PPS[...])
            #expect(sets.pictureParameterSets[0]?.warnings == [])
        }
    }

    /// The table's values are ffprobe's: a stream of each SPS, a PPS and an IDR slice header still probes so.
    @Test(arguments: ForeignParameterSets.fixtures)
    func ffprobeStillAgrees(_ fixture: ForeignParameterSets.Fixture) throws {
        let probe = try Self.probe(sps: fixture.bytes)
        #expect(probe["width"] as? Int == fixture.width)
        #expect(probe["height"] as? Int == fixture.height)
        #expect(probe["profile"] as? String == fixture.profile)
        #expect(probe["level"] as? Int == fixture.level)
    }

    /// The SPS cut after every byte of its VUI: rtenc keeps the size, the fields before the cut and says the VUI
    /// is truncated. Cuts that leave more than the aspect ratio fields are what FFmpeg keeps too ("Overread VUI"),
    /// with the same size; a cut inside aspect_ratio_idc makes FFmpeg read garbage there and refuse the SPS
    /// ("illegal aspect ratio"), where rtenc, like libwebrtc and mediacommon, keeps the size.
    static let cutCases: [String] = [
        "openh264-320x240", "openh264-1920x1080", "mediacommon-1280x720", "mediacommon-nvenc-hrd",
        "mediacommon-hikvision-hrd", "libwebrtc-640x360",
    ]

    @Test(arguments: cutCases)
    func vuiCutShortKeepsTheSize(_ name: String) throws {
        let fixture = try #require(ForeignParameterSets.fixtures.first { $0.name == name })
        let whole = try H264.SequenceParameterSet(nalUnit: fixture.bytes[...])
        let wholeVUI = try #require(whole.vuiParameters)
        var truncatedCount = 0
        for length in 1..<fixture.bytes.count {
            let sps: H264.SequenceParameterSet
            do {
                sps = try H264.SequenceParameterSet(nalUnit: fixture.bytes[..<length])
            } catch {
                // Cut before the picture size is known: nothing to keep.
                #expect([.truncated, .emptyNALUnit].contains(error.code), "\(length): \(error)")
                continue
            }
            truncatedCount += 1
            #expect(sps.vuiTruncated, "prefix \(length) parsed without a truncation warning")
            #expect(sps.width == whole.width && sps.height == whole.height, "prefix \(length)")
            #expect(sps.frameCropBottomOffset == whole.frameCropBottomOffset)
            #expect(sps.warnings.last?.code == .truncated)
            // Every VUI field present in the cut parse has the whole parse's value.
            if let vui = sps.vuiParameters {
                #expect(vui.isTruncated)
                if let idc = vui.aspectRatioIdc { #expect(idc == wholeVUI.aspectRatioIdc) }
                if let tick = vui.numUnitsInTick { #expect(tick == wholeVUI.numUnitsInTick) }
                if let scale = vui.timeScale { #expect(scale == wholeVUI.timeScale) }
                if let h = vui.log2MaxMvLengthHorizontal { #expect(h == wholeVUI.log2MaxMvLengthHorizontal) }
                if let d = vui.maxDecFrameBuffering { #expect(d == wholeVUI.maxDecFrameBuffering) }
            }
        }
        #expect(truncatedCount > 0)
    }

    /// FFmpeg on the same cuts: where it keeps the SPS, its size is rtenc's.
    @Test(arguments: ["openh264-640x480", "mediacommon-hikvision-hrd"])
    func vuiCutsAgreeWithFFprobe(_ name: String) throws {
        let fixture = try #require(ForeignParameterSets.fixtures.first { $0.name == name })
        var compared = 0
        for length in stride(from: fixture.bytes.count - 1, to: 1, by: -1) {
            let cut = Array(fixture.bytes[..<length])
            guard let sps = try? H264.SequenceParameterSet(nalUnit: cut[...]) else { break }
            guard let vui = sps.vuiParameters, vui.aspectRatioIdc != nil || !vui.aspectRatioInfoPresentFlag else {
                continue  // cut inside aspect_ratio_idc: FFmpeg refuses (see vuiCutShortKeepsTheSize)
            }
            let probe = try Self.probe(sps: cut)
            #expect(probe["width"] as? Int == sps.width, "cut at \(length)")
            #expect(probe["height"] as? Int == sps.height, "cut at \(length)")
            compared += 1
        }
        #expect(compared >= 3)
    }

    // MARK: ffprobe on a parameter set

    /// ffprobe's stream of the SPS, OpenH264's PPS and an IDR slice header (`ForeignParameterSets.stream`).
    static func probe(sps bytes: [UInt8]) throws -> [String: Any] {
        let sps = try H264.SequenceParameterSet(nalUnit: bytes[...])
        try #require(sps.seqParameterSetId == 0, "OpenH264's PPS names SPS 0")
        let stream = ForeignParameterSets.stream(sps: bytes, slice: sliceSyntax(sps))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rtenc-foreign-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("sps.h264").path
        try Data(stream).write(to: URL(fileURLWithPath: path))
        return try SyntaxFixtures.probeStream(path)
    }

    static func sliceSyntax(_ sps: H264.SequenceParameterSet) -> ForeignParameterSets.SliceSyntax {
        .init(separateColourPlane: sps.separateColourPlaneFlag, log2MaxFrameNum: sps.log2MaxFrameNum,
              frameMbsOnly: sps.frameMbsOnlyFlag, picOrderCntType: sps.picOrderCntType,
              log2MaxPicOrderCntLsb: sps.log2MaxPicOrderCntLsb,
              deltaPicOrderAlwaysZero: sps.deltaPicOrderAlwaysZeroFlag ?? false)
    }
}
