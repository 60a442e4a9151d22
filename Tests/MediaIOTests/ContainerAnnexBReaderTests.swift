import Bitstream
import Foundation
import MediaIO
import Testing

/// Any container's H.264 track as Annex-B: the NAL units must be those ffmpeg writes with `-c copy -f h264`
/// (which inserts h264_mp4toannexb for AVCC input), packet for packet.
@Suite struct ContainerAnnexBReaderTests {
    @Test(arguments: ["mp4", "mkv", "ts"])
    func sameNALUnitsAsFFmpegCopy(_ container: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("clip.\(container)").path
            _ = try runTool("ffmpeg", [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-frames:v", "9",
                "-c:v", "libx264", "-preset", "veryfast", "-g", "4", "-bf", "1", "-pix_fmt", "yuv420p", path,
            ])
            let copyPath = directory.appendingPathComponent("copy.h264").path
            _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", path, "-c", "copy", "-f", "h264", copyPath])
            let theirs = try AnnexB.split(Array(try Data(contentsOf: URL(fileURLWithPath: copyPath)))[...])

            let reader = try ContainerAnnexBReader(path: path)
            #expect((reader.configuration != nil) == (container != "ts"))
            var packets = 0
            var ours: [ArraySlice<UInt8>] = []
            while let packet = try reader.nextPacket() {
                #expect(packet.starts(with: [0, 0, 0, 1]) || packet.starts(with: [0, 0, 1]))
                ours += try AnnexB.split(packet[...])
                packets += 1
            }
            #expect(packets == 9)
            // Access unit delimiters aside (MPEG-TS carries them; the MP4 conversions do not), the same NAL units.
            let notAUD = { (nal: ArraySlice<UInt8>) in nal.first.map { $0 & 0x1F != 9 } ?? false }
            #expect(ours.filter(notAUD).map(Array.init) == theirs.filter(notAUD).map(Array.init))
        }
    }

    @Test func aFileWithoutH264IsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("clip.mkv").path
            _ = try runTool("ffmpeg", [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x64", "-frames:v", "2",
                "-c:v", "mpeg4", path,
            ])
            #expect(throws: MediaIOError.self) { try ContainerAnnexBReader(path: path) }
        }
    }
}
