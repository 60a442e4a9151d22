import Foundation
import Testing
import TestSupport
@testable import MediaIO

/// The display matrix read as ffmpeg's autorotate reads it: a case table of matrices, and a real MP4 whose `tkhd`
/// says to turn it, read through libavformat.
@Suite struct DisplayMatrixTests {
    /// (a, b, c, d in 16.16 as written in tkhd, the clockwise degrees, the quarter turn)
    static let cases: [([Int32], Int?, Int?)] = [
        ([0x10000, 0, 0, 0x10000], 0, 0),
        ([0, 0x10000, -0x10000, 0], 90, 90), // an iPhone's portrait video
        ([-0x10000, 0, 0, -0x10000], 180, 180),
        ([0, -0x10000, 0x10000, 0], 270, 270),
        ([0, 0x20000, -0x20000, 0], 90, 90), // scaled 2×: still a quarter turn
        ([0xDDB4, 0x8000, -0x8000, 0xDDB4], 30, nil), // cos 30°, sin 30°: not a quarter turn
        ([0xFFFF, 0x0200, -0x0200, 0xFFFF], 0, 0), // 0.45°: within a degree of none
        ([0, 0, 0, 0], nil, 0), // no rotation part: left alone, as ffmpeg does
    ]

    @Test(arguments: cases)
    func rotationIsFfmpegs(_ testCase: ([Int32], Int?, Int?)) throws {
        let (abcd, degrees, quarter) = testCase
        let matrix = try #require(DisplayMatrix([abcd[0], abcd[1], 0, abcd[2], abcd[3], 0, 0, 0, 0x4000_0000]))
        #expect(matrix.clockwiseDegrees == degrees)
        #expect(matrix.quarterTurn == quarter)
    }

    @Test func clockwiseMakesTheMatrixItNames() {
        for degrees in [0, 90, 180, 270] {
            #expect(DisplayMatrix.clockwise(degrees).quarterTurn == degrees)
        }
        #expect(DisplayMatrix.clockwise(0) == .identity)
        #expect(DisplayMatrix([1, 2, 3]) == nil)
    }

    @Test(arguments: [90, 180, 270])
    func anMP4TrackMatrixReachesTheCaller(_ degrees: Int) throws {
        let directory = try makeTemporaryDirectory(prefix: "display-matrix")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("turned.mp4").path
        try LavfiMedia.testsrc2(path, size: "64x32", frames: 3)
        try TrackMatrix.set(DisplayMatrix.clockwise(degrees).values, in: path)
        // ffprobe agrees it is turned (its rotation is libav's: counterclockwise, in (−180, 180]).
        let probe = try Tool.output("ffprobe", ["-v", "error", "-show_entries", "stream_side_data=rotation", "-of", "csv=p=0",
                                                path], timeout: 30)
        let rotation = String(decoding: probe, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init)
        #expect(rotation == [90: "-90", 180: "-180", 270: "90"][degrees])
        var seen: LibAVFileSource.SourceGeometry?
        _ = try LibAVFileSource(path: path, format: .i420, matrix: .bt601) { geometry in
            seen = geometry
            return (geometry.width, geometry.height)
        }
        #expect(seen?.width == 64 && seen?.height == 32) // stored size: the pictures are not turned by the reader
        #expect(seen?.displayMatrix?.quarterTurn == degrees)
        // A file without a matrix has none.
        let plain = directory.appendingPathComponent("plain.mp4").path
        try LavfiMedia.testsrc2(plain, size: "64x32", frames: 3)
        _ = try LibAVFileSource(path: plain, format: .i420, matrix: .bt601) { geometry in
            seen = geometry
            return (geometry.width, geometry.height)
        }
        #expect(seen?.displayMatrix == nil || seen?.displayMatrix?.quarterTurn == 0)
    }
}
