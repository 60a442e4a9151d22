#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Bitstream
import FoundationEssentials
import MediaIO

/// `rtenc inspect FILE`: every NAL unit, access unit and parameter set of an H.264 or H.265 stream, as JSON. A raw
/// Annex-B file is read by Bitstream alone; anything else (MP4, MOV, MKV, MPEG-TS …) is demuxed by libavformat
/// first, its packets turned into Annex-B as `rtenc annexb` does, as ffprobe reads any container.
///
/// The codec: `--codec` when given; for a container, the demuxer's codec id; for a raw Annex-B file, the first NAL
/// unit's header (`VideoCodec.sniff`), and the file's extension (.h265/.hevc/.265 or .h264/.264/.avc) only where
/// that header reads as neither.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print the NAL units, access units and parameter sets of an H.264 or H.265 stream (.h264, .h265, .mp4, .mkv, .ts …) as JSON.",
        discussion: """
            Keys are the H.264 or H.265 syntax-element names in snake_case, plus derived width, height and fps. \
            Values the parsers accept although the specification does not (as FFmpeg accepts them: out-of-range \
            values that derive nothing, a VUI cut short) are listed under "warnings", and in --summary. The codec \
            of a raw Annex-B file is read from its first NAL unit header (the extension decides only where that \
            header fits neither codec); --codec overrides both.
            """
    )

    @Argument(help: "An Annex-B file (.h264, .264, .h265, .hevc, .265), or any file with an H.264 or H.265 track libavformat reads.")
    var file: String

    @Option(help: "The codec of a raw Annex-B file (h264 or avc, hevc or h265), instead of reading it from the stream.")
    var codec: CodecArgument?

    @Flag(help: "Print a short table for people instead of JSON.")
    var summary = false

    func run() throws {
        let report = try Self.report(file, codec: codec?.codec)
        if summary {
            print(report.summaryTable(name: file), terminator: "")
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(report)
            Console.standardOutput.write(data)
            Console.standardOutput.write("\n")
        }
    }

    /// The report of either codec.
    enum Report: Encodable {
        case h264(StreamReport)
        case hevc(HEVCStreamReport)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .h264(let report): try report.encode(to: encoder)
            case .hevc(let report): try report.encode(to: encoder)
            }
        }

        func summaryTable(name: String) -> String {
            switch self {
            case .h264(let report): report.summaryTable(name: name)
            case .hevc(let report): report.summaryTable(name: name)
            }
        }
    }
}

extension InspectCommand {
    /// The stream report of `path`: Annex-B when the file starts like one (zero bytes then 00 00 01), else the
    /// H.264 or H.265 track libavformat demuxes from it. `codec` overrides the codec read from the stream.
    static func report(_ path: String, codec: VideoCodec? = nil) throws -> Report {
        let head = try readInput(path, command: "inspect", limit: 64)
        guard !Self.startsLikeAnnexB(head) else {
            let bytes = try readInput(path, command: "inspect")
            let given = codec
            let codec = codec ?? Self.annexBCodec(head: head, path: path)
            do {
                return codec == .hevc ? .hevc(try HEVCStreamReport(annexB: bytes)) : .h264(try StreamReport(annexB: bytes))
            } catch {
                throw CLIError("inspect: \(path) is not a readable \(CodecArgument.name(codec)) Annex-B stream: \(error)"
                    + (given == nil ? " (the codec was read from its first NAL unit or extension; --codec chooses it)" : ""))
            }
        }
        let annexB: [UInt8]
        let container: String
        let recordWarnings: [BitstreamWarning]
        let trackCodec: VideoCodec
        do {
            let reader = try ContainerAnnexBReader(path: path)
            container = reader.formatName
            recordWarnings = reader.recordWarnings
            trackCodec = reader.codec
            annexB = try reader.readAll()
        } catch {
            throw CLIError("inspect: \(path) is neither an H.264/H.265 Annex-B stream (no start code at its start) "
                + "nor a file with an H.264 or H.265 track libavformat reads: \(error)")
        }
        if let codec, codec != trackCodec {
            throw CLIError("inspect: the video track of \(path) is \(CodecArgument.name(trackCodec)), not \(CodecArgument.name(codec)) as --codec says")
        }
        do {
            if trackCodec == .hevc {
                var report = try HEVCStreamReport(annexB: annexB, container: container)
                report.warnings.insert(
                    contentsOf: recordWarnings.map { .init(nalUnit: nil, structure: "hvcC", warning: $0) }, at: 0)
                return .hevc(report)
            }
            var report = try StreamReport(annexB: annexB, container: container)
            report.warnings.insert(
                contentsOf: recordWarnings.map { .init(nalUnit: nil, structure: "avcC", warning: $0) }, at: 0)
            return .h264(report)
        } catch {
            throw CLIError("inspect: the \(CodecArgument.name(trackCodec)) track of \(path) (\(container)) is not readable: \(error)")
        }
    }

    static let hevcExtensions: Set<String> = ["h265", "hevc", "265"]

    /// The codec of a raw Annex-B file: what its first NAL unit header says, else what its extension says, else
    /// H.264.
    static func annexBCodec(head: [UInt8], path: String) -> VideoCodec {
        if let start = head.firstIndex(of: 1).map({ $0 + 1 }), start < head.count,
           let sniffed = VideoCodec.sniff(firstNALUnit: head[start...])
        {
            return sniffed
        }
        return hevcExtensions.contains(fileExtension(path)) ? .hevc : .h264
    }

    private static func fileExtension(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "" }
        return path[path.index(after: dot)...].lowercased()
    }

    /// leading_zero_8bits, then a start code (B.1.1). An ISO BMFF file whose first box has size 1 (a 64-bit size
    /// follows) also begins 00 00 00 01, so a box type after it means a container.
    static func startsLikeAnnexB(_ head: [UInt8]) -> Bool {
        guard let one = head.firstIndex(where: { $0 != 0 }), one >= 2, head[one] == 1 else { return false }
        let boxType = head.dropFirst(4).prefix(4)
        let isBoxType = one == 3 && boxType.count == 4 && boxType.allSatisfy { (0x61...0x7A).contains($0) }
        return !isBoxType
    }
}

/// Reads a whole input file, turning every failure into one line naming the file and the reason.
/// With `limit`, reads at most that many bytes from the start.
func readInput(_ path: String, command: String, limit: Int? = nil) throws -> [UInt8] {
    var isDirectory = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw CLIError("\(command): cannot read \(path): no such file")
    }
    guard !isDirectory else {
        throw CLIError("\(command): cannot read \(path): is a directory")
    }
    if let limit {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CLIError("\(command): cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: limit)
        let count = head.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, limit) }
        guard count >= 0 else {
            throw CLIError("\(command): cannot read \(path): \(String(cString: strerror(errno)))")
        }
        return Array(head.prefix(count))
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw CLIError("\(command): cannot read \(path): permission denied or unreadable")
    }
    return [UInt8](data)
}
