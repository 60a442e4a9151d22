import Bitstream
import Testing

/// Access units of x264 streams against ffprobe's frames: one access unit per frame, IDRs where ffprobe sees key
/// frames, and the same picture types.
@Suite // needs ffmpeg and ffprobe: `make test` installs them, and their absence must fail, not skip
struct AccessUnitx264Tests {
    static let configs: [(name: String, options: [String])] = [
        ("ultrafast", ["-preset", "ultrafast", "-g", "10"]),
        ("b-frames", ["-preset", "veryfast", "-bf", "3", "-g", "12"]),
        ("slices=2", ["-preset", "veryfast", "-g", "10", "-x264-params", "slices=2"]),
        ("zerolatency-sliced-threads", ["-preset", "veryfast", "-tune", "zerolatency", "-threads", "2", "-g", "10"]),
        ("aud+4-slices", ["-preset", "veryfast", "-g", "7", "-x264-params", "aud=1:slices=4"]),
        ("interlaced", ["-preset", "veryfast", "-flags", "+ildct+ilme", "-g", "10"]),
    ]

    @Test(arguments: configs.map(\.name))
    func oneAccessUnitPerFrame(_ name: String) throws {
        let options = try #require(Self.configs.first { $0.name == name }).options
        let stream = try SyntaxFixtures.x264(frames: 25, options)
        defer { stream.remove() }
        let bytes = stream.bytes
        let path = stream.path
        let frames = try SyntaxFixtures.probeFrames(path)
        let nals = SyntaxFixtures.nalUnits(annexB: bytes)
        let units = H264.accessUnits(of: nals)

        #expect(frames.count == 25)
        #expect(units.count == frames.count)
        #expect(units.map(\.isIDR) == frames.map(\.keyFrame))
        // Every NAL unit lands in exactly one access unit, in order.
        #expect(units.flatMap(\.nalUnits).map(\.startIndex) == nals.map(\.startIndex))
        // ffprobe lists frames in display order; compare the multiset of picture types.
        let mine = units.compactMap { $0.primarySliceType?.name }.sorted()
        #expect(mine == frames.map(\.pictType).sorted())
        #expect(units.allSatisfy { $0.sliceHeaderError == nil && $0.qp != nil })

        if name.contains("slices") || name.contains("sliced") {
            let slicesPerUnit = units.map { $0.nalUnitTypes.filter { [1, 5].contains($0.rawValue) }.count }
            #expect(slicesPerUnit.allSatisfy { $0 >= 2 }, "\(slicesPerUnit)")
        }
        if name.hasPrefix("aud") {
            #expect(units.allSatisfy { $0.nalUnitTypes.first == .accessUnitDelimiter })
        }
    }

    /// Fed one NAL unit at a time across several concatenated streams (new SPS/PPS each time), the splitter
    /// keeps going and finds every frame.
    @Test func endlessStream() throws {
        let firstStream = try SyntaxFixtures.x264(frames: 8, ["-preset", "ultrafast", "-g", "4"])
        defer { firstStream.remove() }
        let first = firstStream.bytes
        let secondStream = try SyntaxFixtures.x264(
            size: "320x240", frames: 8, ["-preset", "veryfast", "-profile:v", "high", "-bf", "2"])
        defer { secondStream.remove() }
        let second = secondStream.bytes
        var splitter = H264.AccessUnitSplitter()
        var units: [H264.AccessUnit] = []
        for stream in [first, second, first] {
            for nal in SyntaxFixtures.nalUnits(annexB: stream) {
                if let unit = splitter.append(nal) { units.append(unit) }
            }
        }
        if let last = splitter.flush() { units.append(last) }
        #expect(units.count == 24)
        #expect(units.filter(\.isIDR).count == 2 + 1 + 2)
        #expect(units.allSatisfy { $0.firstSliceHeader != nil })
        #expect(splitter.parameterSets.sequenceParameterSets[0]?.width == 160)
    }
}
