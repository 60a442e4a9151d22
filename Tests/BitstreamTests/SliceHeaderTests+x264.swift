import Bitstream
import Foundation
import Testing

/// Slice headers of x264 streams, compared with ffmpeg's own reading (trace_headers) and with the QP x264 was told.
@Suite // needs ffmpeg and ffprobe: `make test` installs them, and their absence must fail, not skip
struct SliceHeaderx264Tests {
    static let configs: [(name: String, options: [String])] = [
        ("veryfast-b2-slices2", ["-preset", "veryfast", "-bf", "2", "-x264-params", "slices=2"]),
        ("medium-pyramid-weightp", ["-preset", "medium", "-bf", "3", "-b_strategy", "0",
                                     "-x264-params", "b-pyramid=normal:weightp=2:ref=4:keyint=8"]),
        ("baseline-cavlc", ["-preset", "veryfast", "-profile:v", "baseline", "-x264-params", "keyint=4"]),
        ("interlaced", ["-preset", "veryfast", "-flags", "+ildct+ilme"]),
    ]

    /// Every syntax element both readings produce has the same value, for every slice.
    @Test(arguments: configs.map(\.name))
    func matchesTraceHeaders(_ name: String) throws {
        let options = try #require(Self.configs.first { $0.name == name }).options
        let stream = try SyntaxFixtures.x264(frames: 12, options)
        defer { stream.remove() }
        try Self.compareWithTraceHeaders(bytes: stream.bytes, path: stream.path, minimumSlices: 12)
    }

    /// Parses every slice header of the stream in `bytes` (written at `path`) and checks each syntax element
    /// against ffmpeg's trace_headers reading of the same file.
    static func compareWithTraceHeaders(bytes: [UInt8], path: String, minimumSlices: Int) throws {
        let traced = try SyntaxFixtures.tracedSliceHeaders(path)

        var sets = H264.ParameterSets()
        var parsed: [[String: Any]] = []
        for nal in SyntaxFixtures.nalUnits(annexB: bytes) {
            switch SyntaxFixtures.nalType(nal) {
            case 7, 8:
                try sets.update(nalUnit: nal)
            case 1, 5:
                let header = try H264.SliceHeader(nalUnit: nal, parameterSets: sets)
                let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(header))
                parsed.append(try #require(json as? [String: Any]))
            default:
                break
            }
        }
        #expect(parsed.count == traced.count)
        #expect(parsed.count >= minimumSlices)
        var compared = 0
        for (mine, theirs) in zip(parsed, traced) {
            for (key, value) in mine {
                guard let expected = theirs[key] else { continue }
                let actual: Int? = (value as? Bool).map { $0 ? 1 : 0 } ?? (value as? Int)
                #expect(actual == expected, "\(key)")
                compared += 1
            }
            // Elements ffmpeg read that this parser should have produced too.
            for key in ["slice_qp_delta", "frame_num", "pic_order_cnt_lsb", "idr_pic_id", "cabac_init_idc",
                        "num_ref_idx_active_override_flag", "direct_spatial_mv_pred_flag",
                        "disable_deblocking_filter_idc", "field_pic_flag"]
            where theirs[key] != nil {
                #expect(mine[key] != nil, "\(key) missing")
            }
        }
        #expect(compared > parsed.count * 5)
    }

    /// Constant QP with ipratio and pbratio 1: every slice, whatever its type, has SliceQPY 30.
    @Test func constantQP() throws {
        let stream = try SyntaxFixtures.x264(
            frames: 15, ["-preset", "veryfast", "-bf", "2", "-qp", "30", "-x264-params", "ipratio=1:pbratio=1"])
        defer { stream.remove() }
        let bytes = stream.bytes
        let units = H264.accessUnits(of: SyntaxFixtures.nalUnits(annexB: bytes))
        #expect(units.count == 15)
        for unit in units {
            #expect(unit.qp == 30)
        }
        #expect(Set(units.compactMap(\.primarySliceType)) == [.i, .p, .b])
    }

    /// Default ipratio 1.4 and pbratio 1.3: I-frames get a lower, B-frames a higher QP than P-frames.
    @Test func constantQPWithRatios() throws {
        let stream = try SyntaxFixtures.x264(frames: 15, ["-preset", "veryfast", "-bf", "2", "-qp", "30"])
        defer { stream.remove() }
        let bytes = stream.bytes
        let units = H264.accessUnits(of: SyntaxFixtures.nalUnits(annexB: bytes))
        for unit in units {
            let qp = try #require(unit.qp)
            switch unit.primarySliceType {
            case .i: #expect(qp < 30)
            case .p: #expect(qp == 30)
            case .b: #expect(qp > 30)
            default: Issue.record("unexpected slice type")
            }
        }
    }
}
