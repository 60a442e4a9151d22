import Bitstream
import Foundation
import TestSupport
import Testing

/// Streams Cisco's OpenH264 makes (GStreamer's openh264enc), read by every H.264 parser here and compared with
/// ffmpeg's own reading of the same file (trace_headers) and with ffprobe. Skipped only when openh264enc is not
/// installed (gstreamer1.0-plugins-bad with libopenh264-7, scripts/deps.sh).
@Suite struct OpenH264Tests {
    static let available: Bool = {
        guard let result = try? Tool.run("/usr/bin/gst-inspect-1.0", ["openh264enc"], timeout: 30) else { return false }
        return !result.timedOut && result.status == 0
    }()

    struct Config: Sendable, CustomTestStringConvertible {
        var size: String
        var settings: [String] = []
        var testDescription: String { ([size] + settings).joined(separator: " ") }
    }

    static let configs: [Config] = [
        Config(size: "320x240"),
        Config(size: "640x360", settings: ["slice-mode=n-slices", "num-slices=4"]),
        Config(size: "176x144", settings: ["gop-size=5", "usage-type=screen"]),
        Config(size: "1280x720", settings: ["rate-control=bitrate", "bitrate=3000000", "multi-thread=2"]),
    ]

    /// `frames` frames of videotestsrc through openh264enc and h264parse, in a fresh temporary directory.
    static func encode(_ config: Config, frames: Int = 10) throws -> SyntaxFixtures.EncodedStream {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rtenc-openh264-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("openh264.h264").path
        let parts = config.size.split(separator: "x")
        do {
            _ = try Tool.output("/usr/bin/gst-launch-1.0", [
                "-q", "videotestsrc", "num-buffers=\(frames)", "!",
                "video/x-raw,width=\(parts[0]),height=\(parts[1]),framerate=30/1", "!", "openh264enc",
            ] + config.settings + ["!", "h264parse", "!", "filesink", "location=\(path)"], timeout: 60)
            return SyntaxFixtures.EncodedStream(
                bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))), path: path, directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    @Test(.enabled(if: available), arguments: configs)
    func sliceHeadersMatchTraceHeaders(_ config: Config) throws {
        let stream = try Self.encode(config)
        defer { stream.remove() }
        try SliceHeaderx264Tests.compareWithTraceHeaders(bytes: stream.bytes, path: stream.path, minimumSlices: 10)
    }

    /// SPS (VUI included) and PPS field by field against trace_headers, and the size against ffprobe.
    @Test(.enabled(if: available), arguments: configs)
    func parameterSetsMatchTraceHeadersAndFFprobe(_ config: Config) throws {
        let stream = try Self.encode(config, frames: 2)
        defer { stream.remove() }
        let spsNAL = try #require(SyntaxFixtures.first(type: 7, in: stream.bytes))
        let ppsNAL = try #require(SyntaxFixtures.first(type: 8, in: stream.bytes))
        let sps = try H264.SequenceParameterSet(nalUnit: spsNAL)
        let pps = try H264.PictureParameterSet(nalUnit: ppsNAL, sequenceParameterSets: [0: sps])

        #expect(sps.warnings.map(\.syntaxElement) == ["log2_max_mv_length_horizontal", "log2_max_mv_length_vertical"])
        #expect(!sps.vuiTruncated)
        #expect(pps.warnings.isEmpty)

        let probe = try SyntaxFixtures.probeStream(stream.path)
        #expect(sps.width == probe["width"] as? Int)
        #expect(sps.height == probe["height"] as? Int)
        #expect(sps.profile?.rawValue == probe["profile"] as? String)
        #expect(Int(sps.levelIdc) == probe["level"] as? Int)
        #expect("\(sps.width)x\(sps.height)" == config.size)

        for (ours, title) in [(try Self.json(sps), "Sequence Parameter Set"), (try Self.json(pps), "Picture Parameter Set")] {
            let traced = try #require(try SyntaxFixtures.tracedSections(stream.path, titled: title).first)
            var compared = 0
            for (key, expected) in traced {
                guard let value = ours[key] else { continue }
                let actual: Int? = (value as? Bool).map { $0 ? 1 : 0 } ?? (value as? Int)
                #expect(actual == expected, "\(title): \(key)")
                compared += 1
            }
            #expect(compared >= 10, "\(title): only \(compared) fields in common")
        }
    }

    /// The JSON of a parameter set with the VUI's keys lifted to the top, as trace_headers lists them.
    static func json(_ value: some Encodable) throws -> [String: Any] {
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
        if let vui = object.removeValue(forKey: "vui_parameters") as? [String: Any] {
            object.merge(vui) { first, _ in first }
        }
        return object
    }
}
