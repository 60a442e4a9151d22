import Bitstream
import Foundation
import Testing

/// Streams libx265 makes at test time, read by this module and, independently, by ffprobe and ffmpeg's
/// `trace_headers` (libavcodec's cbs_h265): every syntax element both read must agree.
@Suite // needs ffmpeg and ffprobe with libx265: `make test` installs them, and their absence must fail, not skip
struct HEVCx265Tests {
    struct Config: Sendable, CustomTestStringConvertible {
        var name: String
        var size = "160x120"
        var pixelFormat = "yuv420p"
        var params = ""
        var options: [String] = []
        var frames = 10
        var testDescription: String { name }
    }

    static let configs: [Config] = [
        Config(name: "default", params: "keyint=8"),  // B-frames, open GOP (CRA), weighted P, WPP
        Config(name: "zerolatency", params: "keyint=4", options: ["-preset", "ultrafast", "-tune", "zerolatency"]),
        Config(name: "main10", pixelFormat: "yuv420p10le", params: "keyint=5"),
        Config(name: "odd-size", size: "318x238", params: "keyint=5:open-gop=0"),
        Config(name: "slices", size: "320x240", params: "slices=3:keyint=6:bframes=2:b-pyramid=0"),
        Config(name: "no-wpp-lists", params: "no-wpp:bframes=3:ref=3:keyint=10:weightb=1"),
        Config(name: "cqm", params: "scaling-list=default:keyint=4"),
        Config(name: "422", pixelFormat: "yuv422p", params: "keyint=4"),
        Config(name: "720p", size: "1280x720", params: "keyint=3", options: ["-preset", "ultrafast"], frames: 4),
    ]

    /// Each JSON value as an Int (Bool → 0/1), nested objects flattened one level, arrays left out: the shape
    /// of `trace_headers`' scalar lines.
    static func scalars(_ encodable: some Encodable) throws -> [String: Int] {
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(encodable)) as? [String: Any] ?? [:]
        var out: [String: Int] = [:]
        func add(_ dictionary: [String: Any]) {
            for (key, value) in dictionary {
                if let nested = value as? [String: Any] {
                    add(nested)
                } else if value is [Any] {
                    continue
                } else if let number = value as? Int {
                    out[key] = number
                } else if let flag = value as? Bool {
                    out[key] = flag ? 1 : 0
                }
            }
        }
        add(object)
        return out
    }

    /// The keys both readings have must hold the same values; at least `minimum` must be shared.
    static func expectAgreement(
        _ ours: [String: Int], _ traced: [String: Int], minimum: Int, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let shared = Set(ours.keys).intersection(traced.keys)
        #expect(shared.count >= minimum, "\(what): only \(shared.sorted()) in common", sourceLocation: sourceLocation)
        for key in shared.sorted() where ours[key] != traced[key] {
            Issue.record("\(what) \(key): ours \(ours[key]!), trace_headers \(traced[key]!)",
                         sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: configs)
    func parameterSetsMatchFFprobeAndTrace(_ config: Config) throws {
        let stream = try HEVCFixtures.x265(
            size: config.size, frames: 2, pixelFormat: config.pixelFormat, params: config.params, config.options)
        defer { stream.remove() }
        let sps = try HEVC.SequenceParameterSet(nalUnit: try HEVCFixtures.first(.sps, in: stream.bytes))
        let pps = try HEVC.PictureParameterSet(nalUnit: try HEVCFixtures.first(.pps, in: stream.bytes))
        let vps = try HEVC.VideoParameterSet(nalUnit: try HEVCFixtures.first(.vps, in: stream.bytes))
        #expect(sps.warnings.isEmpty && pps.warnings.isEmpty && vps.warnings.isEmpty)

        let probe = try SyntaxFixtures.probeStream(stream.path)
        #expect(sps.width == probe["width"] as? Int)
        #expect(sps.height == probe["height"] as? Int)
        #expect(Int(sps.profileTierLevel.generalLevelIdc) == probe["level"] as? Int)
        let profileNames: [HEVC.Profile: String] = [.main: "Main", .main10: "Main 10", .formatRangeExtensions: "Rext"]
        #expect(sps.profile.flatMap { profileNames[$0] } == probe["profile"] as? String)
        #expect(sps.fps == 30)

        let traced = try SyntaxFixtures.tracedSections(stream.path, titled: "Sequence Parameter Set")
        Self.expectAgreement(try Self.scalars(sps), try #require(traced.first), minimum: 40, "SPS")
        let tracedPPS = try SyntaxFixtures.tracedSections(stream.path, titled: "Picture Parameter Set")
        Self.expectAgreement(try Self.scalars(pps), try #require(tracedPPS.first), minimum: 25, "PPS")
        let tracedVPS = try SyntaxFixtures.tracedSections(stream.path, titled: "Video Parameter Set")
        Self.expectAgreement(try Self.scalars(vps), try #require(tracedVPS.first), minimum: 12, "VPS")
    }

    /// Every slice segment header parses and agrees with trace_headers up to slice_qp_delta.
    @Test(arguments: configs)
    func sliceHeadersMatchTrace(_ config: Config) throws {
        let stream = try HEVCFixtures.x265(
            size: config.size, frames: config.frames, pixelFormat: config.pixelFormat, params: config.params,
            config.options)
        defer { stream.remove() }
        var sets = HEVC.ParameterSets()
        var headers: [HEVC.SliceSegmentHeader] = []
        for nal in SyntaxFixtures.nalUnits(annexB: stream.bytes) {
            if try sets.update(nalUnit: nal) { continue }
            guard HEVCFixtures.nalType(nal).isVCL else { continue }
            headers.append(try HEVC.SliceSegmentHeader(nalUnit: nal, parameterSets: sets))
        }
        let traced = try SyntaxFixtures.tracedSections(stream.path, titled: "Slice Segment Header")
        try #require(headers.count == traced.count)
        #expect(headers.count >= config.frames)
        let read = [
            "first_slice_segment_in_pic_flag", "no_output_of_prior_pics_flag", "slice_pic_parameter_set_id",
            "dependent_slice_segment_flag", "slice_segment_address", "slice_type", "slice_pic_order_cnt_lsb",
            "short_term_ref_pic_set_sps_flag", "short_term_ref_pic_set_idx", "slice_temporal_mvp_enabled_flag",
            "slice_sao_luma_flag", "slice_sao_chroma_flag", "num_ref_idx_active_override_flag",
            "num_ref_idx_l0_active_minus1", "num_ref_idx_l1_active_minus1", "mvd_l1_zero_flag", "cabac_init_flag",
            "collocated_from_l0_flag", "collocated_ref_idx", "five_minus_max_num_merge_cand", "slice_qp_delta",
        ]
        for (index, (header, trace)) in zip(headers, traced).enumerated() {
            let ours = try Self.scalars(header)
            // trace_headers prints a syntax element only where it is coded; ours also holds inferred counts.
            for key in read where trace[key] != nil {
                #expect(ours[key] == trace[key], "slice \(index) \(key): ours \(ours[key].map(String.init) ?? "nil"), trace \(trace[key]!)")
            }
            #expect(trace["slice_qp_delta"] != nil)
            #expect(header.sliceQpY == header.initQp + (trace["slice_qp_delta"] ?? 99))
        }
        #expect(headers.contains { $0.isIRAP })
        #expect(headers.contains { !$0.isIRAP })
    }
}
