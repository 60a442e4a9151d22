import Bitstream
import Foundation
import Testing

/// SPS (and PPS) of streams x264 makes at test time, compared with what ffprobe reports for the same stream.
@Suite // needs ffmpeg and ffprobe: `make test` installs them, and their absence must fail, not skip
struct SPSx264Tests {
    struct Config: Sendable, CustomTestStringConvertible {
        var name: String
        var size = "160x120"
        var rate = "30"
        var pixelFormat = "yuv420p"
        var options: [String]
        var frames = 2
        var testDescription: String { name }
    }

    static let configs: [Config] = [
        Config(name: "baseline", options: ["-preset", "veryfast", "-profile:v", "baseline"]),
        Config(name: "main", options: ["-preset", "veryfast", "-profile:v", "main"]),
        Config(name: "high", options: ["-preset", "veryfast", "-profile:v", "high"]),
        Config(name: "1080p", size: "1920x1080", options: ["-preset", "ultrafast"], frames: 1),
        Config(name: "high422", pixelFormat: "yuv422p", options: ["-preset", "veryfast", "-profile:v", "high422"]),
        Config(name: "high444", pixelFormat: "yuv444p", options: ["-preset", "veryfast"]),
        Config(name: "fps25", rate: "25", options: ["-preset", "veryfast"]),
        Config(name: "fps59.94", rate: "60000/1001", options: ["-preset", "veryfast"]),
        Config(name: "cqm-jvt", options: ["-preset", "veryfast", "-x264-params", "cqm=jvt"]),
        Config(name: "cqm-custom", options: ["-preset", "veryfast", "-x264-params",
            "cqm4iy=" + Array(repeating: "20", count: 16).joined(separator: ",")
                + ":cqm8i=" + (1...64).map { "\(8 + $0)" }.joined(separator: ",")]),
        // x264 writes hrd_parameters() only with nal-hrd (VBV alone is not enough).
        Config(name: "hrd", options: ["-preset", "veryfast", "-b:v", "800k", "-maxrate", "1M", "-bufsize", "1M",
                                      "-x264-params", "nal-hrd=vbr"]),
        Config(name: "interlaced", options: ["-preset", "veryfast", "-flags", "+ildct+ilme"]),
    ]

    static func rational(_ text: String?) -> Double? {
        guard let parts = text?.split(separator: "/"), parts.count == 2,
            let n = Double(parts[0]), let d = Double(parts[1]), d != 0
        else { return nil }
        return n / d
    }

    @Test(arguments: configs)
    func matchesFFprobe(_ config: Config) throws {
        let stream = try SyntaxFixtures.x264(
            size: config.size, rate: config.rate, frames: config.frames, pixelFormat: config.pixelFormat,
            config.options)
        defer { stream.remove() }
        let bytes = stream.bytes
        let path = stream.path
        let probe = try SyntaxFixtures.probeStream(path)
        let sps = try SyntaxFixtures.sps(in: bytes)

        #expect(sps.width == probe["width"] as? Int)
        #expect(sps.height == probe["height"] as? Int)
        #expect(sps.profile?.rawValue == probe["profile"] as? String)
        #expect(Int(sps.levelIdc) == probe["level"] as? Int)
        let probedRate = try #require(Self.rational(probe["r_frame_rate"] as? String))
        let fps = try #require(sps.fps)
        // ffprobe halves the field rate of interlaced streams; progressive ones match exactly.
        if sps.frameMbsOnlyFlag {
            #expect(abs(fps - probedRate) < 1e-9, "\(fps) vs \(probedRate)")
        }

        // Every PPS parses against its SPS.
        var sets = H264.ParameterSets()
        for nal in SyntaxFixtures.nalUnits(annexB: bytes) where [7, 8].contains(SyntaxFixtures.nalType(nal)) {
            try sets.update(nalUnit: nal)
        }
        let pps = try #require(sets.pictureParameterSets[0])

        switch config.name {
        case "baseline":
            #expect(sps.profileIdc == 66)
            #expect(!pps.entropyCodingModeFlag)
        case "main", "high":
            #expect(pps.entropyCodingModeFlag)
            #expect(pps.transform8x8ModeFlag == (config.name == "high"))
        case "1080p":
            #expect(sps.picHeightInMapUnitsMinus1 + 1 == 68)
            #expect(sps.frameCroppingFlag)
            #expect(sps.frameCropBottomOffset == 4)
            #expect(sps.codedHeight == 1088)
        case "high422":
            #expect(sps.chromaFormatIdc == 2)
            #expect(sps.profileIdc == 122)
        case "high444":
            #expect(sps.chromaFormatIdc == 3)
            #expect(sps.profileIdc == 244)
        case "cqm-jvt":
            // x264 sends the matrices in the PPS (6 lists, +2 with transform_8x8_mode_flag for 4:2:0).
            #expect(!sps.seqScalingMatrixPresentFlag)
            #expect(pps.picScalingMatrixPresentFlag)
            let lists = try #require(pps.picScalingLists)
            #expect(lists.count == (pps.transform8x8ModeFlag ? 8 : 6))
            // JVT's matrices are the spec's Default_4x4/8x8: x264 signals them by useDefaultScalingMatrixFlag for
            // intra luma and lets the fall-back rule (list not present) repeat them for the others.
            #expect(lists.allSatisfy { $0 == .useDefault || $0 == .notPresent }, "\(lists)")
        case "cqm-custom":
            let lists = try #require(pps.picScalingLists)
            #expect(lists.count == 8)
            // Intra Y 4×4 (list 0): all 20. Intra Y 8×8 (list 6): 9…72 in raster order, sent in zig-zag order.
            #expect(lists[0] == .explicit(Array(repeating: 20, count: 16)), "\(lists)")
            guard case .explicit(let list8) = lists[6] else {
                Issue.record("list 6 is \(lists[6])")
                return
            }
            #expect(list8.count == 64)
            #expect(Set(list8) == Set((9...72).map(UInt8.init)))
            // Zig-zag 8×8 (Table 8-13 frame scan) starts at raster 0, 1, 8, 16, 9, 2.
            #expect(Array(list8.prefix(6)) == [9, 10, 17, 25, 18, 11])
        case "hrd":
            let hrd = try #require(sps.vuiParameters?.nalHrdParameters)
            let bitRate = try #require(hrd.bitRate())
            let cpbSize = try #require(hrd.cpbSize())
            #expect(abs(bitRate - 1_000_000) <= 1_000_000 / 100, "\(bitRate)")
            #expect(abs(cpbSize - 1_000_000) <= 1_000_000 / 100, "\(cpbSize)")
            #expect(sps.vuiParameters?.lowDelayHrdFlag == false)
        case "interlaced":
            #expect(!sps.frameMbsOnlyFlag)
            #expect(sps.cropUnitY == 4)
            #expect(abs(fps - probedRate) < 1e-9 || abs(fps - 2 * probedRate) < 1e-9, "\(fps) vs \(probedRate)")
        default:
            break
        }
    }

    /// Every strict prefix of each x264 SPS fails cleanly, or (cut inside the VUI) keeps the whole's size and
    /// says the VUI is truncated. (Until issue 12 every prefix had to fail; FFmpeg keeps such an SPS.)
    @Test(arguments: configs.filter { ["high", "1080p", "hrd", "high444", "interlaced"].contains($0.name) })
    func dripFeed(_ config: Config) throws {
        let stream = try SyntaxFixtures.x264(
            size: config.size, rate: config.rate, frames: 1, pixelFormat: config.pixelFormat, config.options)
        defer { stream.remove() }
        let bytes = stream.bytes
        let nal = try #require(SyntaxFixtures.first(type: 7, in: bytes))
        let whole = try H264.SequenceParameterSet(nalUnit: nal)
        #expect(whole.warnings.isEmpty)
        var kept = 0
        for end in nal.startIndex..<nal.endIndex {
            do {
                let sps = try H264.SequenceParameterSet(nalUnit: nal[..<end])
                #expect(sps.vuiTruncated, "prefix \(end - nal.startIndex) parsed clean")
                #expect(sps.width == whole.width && sps.height == whole.height)
                kept += 1
            } catch {
                #expect([.truncated, .emptyNALUnit].contains(error.code), "prefix \(end - nal.startIndex): \(error)")
            }
        }
        #expect(kept > 0)
    }
}
