import Bitstream
import Foundation
import TestSupport
import Testing

@testable import EncoderSession

/// HEVC through libx265: delay, keyframes, parameter sets and profiles, read from the NAL unit types of the output
/// and cross-checked with ffprobe/ffmpeg (`-f hevc`).
@Suite struct HEVCSessionTests {
    /// The small real-time HEVC configuration: 160×120, libx265 ultrafast, WebRTC's settings.
    static func smallRealTime(averageBitRate: Int = 300_000, format: PixelFormat = .nv12) -> Configuration {
        var configuration = Configuration.realTimeCommunication(
            width: 160, height: 120, averageBitRate: averageBitRate, pixelFormat: format, encoder: .software,
            codec: .hevc)
        configuration.preset = .ultrafast
        return configuration
    }

    /// Indices (contexts) of the frames whose output holds an IDR picture (IDR_W_RADL or IDR_N_LP).
    static func idrFrames(_ outputs: [EncoderOutput]) -> [Int] {
        outputs.compactMap { output in
            guard let frame = output.frame,
                frame.nalUnits.contains(where: { HEVC.NALUnitType(rawValue: $0.type).isIDR })
            else { return nil }
            return output.context as? Int
        }
    }

    /// Zero delay is `RealtimeTests.realTimeDeliversEachFrameBeforeEncodeReturns` (both codecs). Here: what the
    /// first access unit holds, typed by H.265's header — VPS, SPS, PPS, then the IDR's slice segments — and the
    /// parameter sets reported with it (no avcC: that record is H.264's).
    @Test func firstAccessUnitIsVPSSPSPPSThenTheIDR() throws {
        let outputs = try runSession(Self.smallRealTime(), count: 10)
        let first = try #require(outputs.first?.frame)
        let types = first.nalUnits.map { HEVC.NALUnitType(rawValue: $0.type) }
        #expect(Array(types.prefix(3)) == [.vps, .sps, .pps])
        #expect(types.dropFirst(3).allSatisfy { $0.isIDR })
        #expect(first.isKeyFrame)
        let sets = try #require(first.parameterSets)
        #expect(sets.videoParameterSets.count == 1 && sets.sequenceParameterSets.count == 1)
        #expect(sets.pictureParameterSets.count == 1 && sets.avcC == nil)
        // The SPS the session reports is the one in the stream, and says the configured size.
        let sps = try HEVC.SequenceParameterSet(nalUnit: sets.sequenceParameterSets[0][...])
        #expect(sps.width == 160 && sps.height == 120)
        #expect(outputs.dropFirst().allSatisfy { $0.frame?.isKeyFrame == false && $0.frame?.parameterSets == nil })
    }

    @Test func forcedKeyFrameIsThatVeryFrameWithParameterSetsInFront() throws {
        let outputs = try runSession(Self.smallRealTime(), count: 60, options: { FrameOptions(forceKeyFrame: $0 == 37) })
        #expect(Self.idrFrames(outputs) == [0, 37])
        let forced = try #require(outputs.first { $0.context as? Int == 37 }?.frame)
        let types = forced.nalUnits.map { HEVC.NALUnitType(rawValue: $0.type) }
        let firstIDR = try #require(types.firstIndex { $0.isIDR })
        #expect(Array(types.prefix(firstIDR)) == [.vps, .sps, .pps])
        #expect(forced.isKeyFrame)
        // Repeated, identical parameter sets are not reported again.
        #expect(outputs.first?.frame?.parameterSets != nil)
        #expect(forced.parameterSets == nil)
        #expect(outputs.filter { $0.frame?.isKeyFrame == true }.compactMap { $0.context as? Int } == [0, 37])
        let decode = try ffmpegDecode(annexBStream(outputs.compactMap(\.frame)), format: "hevc")
        #expect(decode.frames == 60)
        #expect(decode.errors.isEmpty, "\(decode.errors)")
    }

    @Test func keyFrameIntervalInFramesAndSeconds() throws {
        var configuration = Self.smallRealTime()
        configuration.live.maxKeyFrameInterval = 60
        #expect(Self.idrFrames(try runSession(configuration, count: 200)) == [0, 60, 120, 180])
        // Frames 10 s apart: frame 24 is the first at ≥ 240 s after the IDR at 0 (WebRTC's 240 s limit).
        let outputs = try runSession(
            Self.smallRealTime(), count: 50, time: { MediaTime(value: Int64($0) * 10, timescale: 1) })
        #expect(Self.idrFrames(outputs) == [0, 24, 48])
        // No other keyframe: libx265 places none itself (keyint=-1, scenecut=0).
        let defaults = try runSession(Self.smallRealTime(), count: 300)
        #expect(Self.idrFrames(defaults) == [0])
        #expect(defaults.filter { $0.frame?.isKeyFrame == true }.count == 1)
    }

    @Test func contextsComeBackInOrderNoneLost() throws {
        var configuration = Self.smallRealTime()
        configuration.realTime = false
        configuration.maxFrameDelayCount = nil
        configuration.allowFrameReordering = true
        // Offline with B-frames and lookahead: outputs come from later calls, all contexts still come back.
        let outputs = try runSession(configuration, count: 60)
        #expect(outputs.map { $0.context as? Int } == Array(0..<60))
        #expect(outputs.allSatisfy { $0.frame != nil })
        #expect(outputs.contains { $0.infoFlags.contains(.asynchronous) })
    }

    /// The profile and level in the stream are what was asked for, as ffprobe reads them (profile name,
    /// general_level_idc): Main and Main 10 from 8-bit NV12 and I420 (widened to 10 bits), and the lowest level that
    /// carries the stream when none is named.
    @Test(arguments: [
        (HEVC.Profile.main, PixelFormat.nv12, "Main", "yuv420p"),
        (.main, .i420, "Main", "yuv420p"),
        (.main10, .nv12, "Main 10", "yuv420p10le"),
        (.main10, .i420, "Main 10", "yuv420p10le"),
    ])
    func profileIsWhatWasAskedFor(profile: HEVC.Profile, format: PixelFormat, name: String, pixelFormat: String) throws {
        var configuration = Self.smallRealTime(format: format)
        configuration.hevcProfileLevel = HEVCProfileLevel(profile: profile, level: nil)
        let outputs = try runSession(configuration, count: 10)
        let stream = annexBStream(outputs.compactMap(\.frame))
        #expect(try ffprobeStreamField(stream, "profile", format: "hevc") == name)
        #expect(try ffprobeStreamField(stream, "pix_fmt", format: "hevc") == pixelFormat)
        // 160×120 at 30 fps: 19 200 luma samples per picture fit level 1, but 576 000 per second need level 2.
        #expect(configuration.resolvedHEVCLevel?.name == "2")
        #expect(try ffprobeStreamField(stream, "level", format: "hevc") == "60")
        #expect(try ffmpegDecode(stream, format: "hevc").frames == 10)
        #expect(outputs.filter { $0.frame?.isKeyFrame == true }.count == 1)
    }

    @Test func aNamedLevelIsWrittenAndOneTooLowIsRefused() throws {
        var configuration = Self.smallRealTime()
        configuration.hevcProfileLevel.level = HEVC.Level(name: "3.1")
        let stream = annexBStream(try runSession(configuration, count: 5).compactMap(\.frame))
        #expect(try ffprobeStreamField(stream, "level", format: "hevc") == "93")

        var hd = Configuration.realTimeCommunication(
            width: 1280, height: 720, averageBitRate: 2_000_000, encoder: .software, codec: .hevc)
        #expect(hd.resolvedHEVCLevel?.name == "3.1")
        hd.hevcProfileLevel.level = HEVC.Level(name: "3")
        do {
            _ = try CompressionSession(configuration: hd)
            Issue.record("level 3 was accepted for 720p30")
        } catch {
            #expect(error.code == .levelTooLow)
            #expect(error.reason.contains("pictureSize 921600.0 > 552960.0"))
            #expect(error.reason.hasSuffix("the lowest level that can is 3.1"))
        }
        // Above every level's bit rate (Main tier 6.2: 240 Mb/s).
        hd.hevcProfileLevel.level = nil
        hd.live = LiveProperties(averageBitRate: 900_000_000)
        #expect(hd.resolvedHEVCLevel == nil)
        hd.hevcProfileLevel.level = HEVC.Level(name: "6.2")
        #expect(throws: EncoderSessionError.self) { try CompressionSession(configuration: hd) }
    }

    /// Table A.8/A.9 rows as the session's level choice reads them (Bitstream's `HEVC.Level`), one case per limit.
    @Test(arguments: [
        (1920, 1080, 30.0, 5_000_000, "4"),  // 1920×1088 coded: 2 088 960 ≤ 2 228 224
        (1920, 1080, 60.0, 5_000_000, "4.1"),  // 125 337 600 samples/s > level 4's 66 846 720
        (3840, 2160, 30.0, 20_000_000, "5"),
        (640, 360, 30.0, 12_000_000, "4"),  // MaxBR: 3.1 carries 10 Mb/s (VCL), not 12
        (176, 144, 15.0, 100_000, "1"),
    ])
    func lowestLevel(width: Int, height: Int, fps: Double, bitRate: Int, name: String) {
        #expect(HEVC.Level.lowest(width: width, height: height, fps: fps, bitRate: bitRate)?.name == name)
        #expect(HEVC.Level(name: name)?.violations(width: width, height: height, fps: fps, bitRate: bitRate).isEmpty == true)
        #expect(HEVC.Level.allCases.map(\.name) == [
            "1", "2", "2.1", "3", "3.1", "4", "4.1", "5", "5.1", "5.2", "6", "6.1", "6.2",
        ])
        #expect(HEVC.Level(generalLevelIdc: 94) == nil)
    }

    /// Length-prefixed output: 4-byte lengths, VPS/SPS/PPS out of band with the first frame (no hvcC record yet).
    @Test func lengthPrefixedOutputCarriesTheParameterSetsOutOfBand() throws {
        var configuration = Self.smallRealTime()
        configuration.outputFormat = .avcc
        let outputs = try runSession(configuration, count: 5)
        let first = try #require(outputs.first?.frame)
        let sets = try #require(first.parameterSets)
        #expect(sets.videoParameterSets.count == 1 && sets.sequenceParameterSets.count == 1)
        #expect(sets.pictureParameterSets.count == 1 && sets.avcC == nil)
        #expect(HEVC.NALUnitHeader(sets.videoParameterSets[0])?.nalUnitType == .vps)
        for frame in outputs.compactMap(\.frame) {
            #expect(frame.accessUnit.framing == .lengthPrefixed(lengthSize: 4))
            #expect(!frame.nalUnits.contains { HEVC.NALUnitType(rawValue: $0.type).isParameterSet })
            // Each length is the NAL unit that follows it.
            for unit in frame.nalUnits {
                let length = frame.bytes[(unit.range.lowerBound - 4)..<unit.range.lowerBound].reduce(0) { $0 << 8 | Int($1) }
                #expect(length == unit.range.count)
            }
        }
        #expect(first.nalUnits.allSatisfy { HEVC.NALUnitType(rawValue: $0.type).isIDR })
    }

    /// hevc_vaapi: no render node here, so `.hardware` fails typed and `.automatic` falls back to libx265 and says
    /// why; Main 10 is refused by the VA-API path before any device is opened (the upload is 8-bit NV12).
    @Test func vaapiErrorPathsFallBackToLibx265() throws {
        _ = TestMedia.quiet
        var configuration = Self.smallRealTime()
        configuration.encoder = .hardware(device: "/nonexistent/renderD128")
        do {
            _ = try CompressionSession(configuration: configuration)
            Issue.record("hevc_vaapi opened on a device that does not exist")
        } catch {
            #expect(error.code == .hardwareUnavailable)
            #expect(error.reason.contains("/nonexistent"))
        }
        configuration.encoder = .automatic
        let collector = OutputCollector()
        let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
        if session.encoderInUse.isHardwareAccelerated {
            #expect(session.encoderInUse.name == "hevc_vaapi")
        } else {
            #expect(session.encoderInUse.name == "libx265")
            #expect(session.encoderInUse.reason.contains("VA-API unavailable"))
            #expect(session.encoderInUse.reason.hasSuffix("using libx265"))
        }
        try session.encode(TestMedia.pattern(width: 160, height: 120, index: 0), presentationTime: TestMedia.time(0))
        #expect(collector.frames.first?.accessUnit.codec == .hevc)

        configuration.hevcProfileLevel.profile = .main10
        configuration.encoder = .hardware()
        do {
            _ = try CompressionSession(configuration: configuration)
            Issue.record("hevc_vaapi accepted Main 10")
        } catch {
            #expect(error.code == .hardwareUnavailable)
            #expect(error.reason.contains("hevc_vaapi encodes Main only"))
        }
        configuration.encoder = .automatic
        let fallback = try CompressionSession(configuration: configuration)
        #expect(fallback.encoderInUse.name == "libx265")
        #expect(fallback.encoderInUse.reason.contains("hevc_vaapi encodes Main only"))
    }

    /// The 8 → 10-bit widening and the NV12 chroma split put every sample where it belongs: one picture with a
    /// different gradient in each of Y, Cb and Cr, encoded in Main 10 (and Main from NV12), decoded by ffmpeg back to
    /// 8-bit I420, matches the input within coding error — a swapped or shifted plane would be off by tens.
    @Test(arguments: [(PixelFormat.nv12, HEVC.Profile.main10), (.i420, .main10), (.nv12, .main)])
    func samplesArriveInTheirPlanes(format: PixelFormat, profile: HEVC.Profile) throws {
        _ = TestMedia.quiet
        let width = 64, height = 48
        var configuration = Self.smallRealTime(averageBitRate: 2_000_000, format: format)
        configuration.width = width
        configuration.height = height
        configuration.hevcProfileLevel.profile = profile
        let luma = (0..<height).flatMap { y in (0..<width).map { x in UInt8(16 + 3 * x) } }
        let cb = (0..<height / 2).flatMap { y in (0..<width / 2).map { x in UInt8(40 + 4 * y) } }
        let cr = (0..<height / 2).flatMap { y in (0..<width / 2).map { x in UInt8(200 - 3 * x) } }
        let buffer: PixelBuffer
        switch format {
        case .i420:
            buffer = PixelBuffer(format: .i420, width: width, height: height, planes: [
                .init(bytes: luma, bytesPerRow: width), .init(bytes: cb, bytesPerRow: width / 2),
                .init(bytes: cr, bytesPerRow: width / 2),
            ])
        case .nv12:
            let interleaved = zip(cb, cr).flatMap { [$0, $1] }
            buffer = PixelBuffer(format: .nv12, width: width, height: height, planes: [
                .init(bytes: luma, bytesPerRow: width), .init(bytes: interleaved, bytesPerRow: width),
            ])
        }
        let collector = OutputCollector()
        let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
        try session.encode(buffer, presentationTime: TestMedia.time(0))
        session.invalidate()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rtenc-\(UUID().uuidString).h265")
        try Data(annexBStream(collector.frames)).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let decoded = [UInt8](try Tool.output("ffmpeg", [
            "-v", "error", "-f", "hevc", "-i", url.path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-",
        ], timeout: 30))
        #expect(decoded.count == width * height * 3 / 2)
        func meanError(_ expected: [UInt8], at offset: Int) -> Double {
            var total = 0
            for (index, value) in expected.enumerated() where offset + index < decoded.count {
                total += abs(Int(value) - Int(decoded[offset + index]))
            }
            return Double(total) / Double(expected.count)
        }
        let errors = [meanError(luma, at: 0), meanError(cb, at: width * height), meanError(cr, at: width * height * 5 / 4)]
        print("\(format) \(profile): mean absolute error Y, Cb, Cr = \(errors)")
        #expect(errors.allSatisfy { $0 < 3 })
    }

    /// The per-frame QP is SliceQpY read from the bitstream (26 + init_qp_minus26 + slice_qp_delta of the first
    /// slice segment), and agrees with ffmpeg's trace_headers on every frame.
    @Test func qpIsReadFromTheSliceSegmentHeaders() throws {
        let outputs = try runSession(Self.smallRealTime(), count: 30)
        let qps = outputs.map(\.stats.qp)
        #expect(qps.allSatisfy { $0.map { (0...51).contains($0) } ?? false })
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rtenc-\(UUID().uuidString).h265")
        try Data(annexBStream(outputs.compactMap(\.frame))).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let trace = try Tool.run(
            "ffmpeg", ["-hide_banner", "-f", "hevc", "-i", url.path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"],
            timeout: 60)
        var initQP = 26
        var first = false
        var traced: [Int?] = []
        for line in trace.stderrText.split(separator: "\n") {
            guard let value = line.split(separator: " ").last.flatMap({ Int($0) }) else { continue }
            if line.contains("init_qp_minus26") { initQP = 26 + value }
            if line.contains("first_slice_segment_in_pic_flag") { first = value == 1 }
            if line.contains("slice_qp_delta"), first { traced.append(initQP + value) }
        }
        #expect(traced == qps)
        #expect(Set(qps).count > 1, "the rate control moved no QP in 30 frames: \(qps)")
    }
}
