import ArgumentParser
import Bitstream
import MediaIO

/// `rtenc annexb IN.mp4 -o OUT.h264`: MP4/MOV samples (AVCC) to an Annex-B stream, through Bitstream's converter,
/// with the avcC's SPS/PPS put in front of every IDR that lacks them (as h264_mp4toannexb does). An H.265 track
/// (hvc1/hev1) goes the same way with the hvcC's VPS/SPS/PPS in front of every IRAP picture that lacks them (as
/// hevc_mp4toannexb does, which also repeats the hvcC's SEI there). `MP4SampleReader` reads both.
struct AnnexBCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "annexb",
        abstract: "Convert the H.264 or H.265 track of an MP4/MOV file to an Annex-B .h264/.h265 stream without re-encoding."
    )

    @Argument(help: "An MP4 or MOV file with an H.264 or H.265 video track.")
    var input: String

    @Option(name: .shortAndLong, help: "The Annex-B file to write ('-' for stdout).")
    var output: String

    func run() throws {
        let reader: MP4SampleReader
        do {
            reader = try MP4SampleReader(path: input)
        } catch {
            throw CLIError("annexb: cannot read \(input): \(error)")
        }
        let writer: AnnexBFileWriter
        do {
            writer = try AnnexBFileWriter(path: output)
        } catch {
            throw CLIError("annexb: cannot write \(output): \(error)")
        }
        let lengthSize = reader.nalUnitLengthSize
        let framing = reader.codec == .hevc ? "length-prefixed H.265" : "AVCC"
        var buffer: [UInt8] = []
        var index = 0
        while true {
            let sample: MP4Sample?
            do {
                sample = try reader.nextSample()
            } catch {
                throw CLIError("annexb: \(input): sample \(index): \(error)")
            }
            guard let sample else { break }
            do {
                let size = try AVCC.annexBSize(sample.bytes[...], lengthSize: lengthSize, parameterSets: reader.parameterSets)
                if buffer.count < size { buffer = [UInt8](repeating: 0, count: size) }
                let written = try buffer.withUnsafeMutableBytes { out throws(BitstreamError) in
                    try AVCC.toAnnexB(sample.bytes[...], lengthSize: lengthSize, parameterSets: reader.parameterSets, into: out)
                }
                try writer.write(buffer[..<written])
            } catch let error as BitstreamError {
                throw CLIError("annexb: \(input): sample \(index) is not valid \(framing): \(error)")
            } catch let error as MediaIOError {
                throw CLIError("annexb: cannot write \(output): \(error)")
            }
            index += 1
        }
        do {
            try writer.close()
        } catch {
            throw CLIError("annexb: cannot write \(output): \(error)")
        }
    }
}
