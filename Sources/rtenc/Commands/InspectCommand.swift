#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Bitstream
import FoundationEssentials
import MediaIO

/// `rtenc inspect FILE`: every NAL unit, access unit and parameter set of an H.264 stream, as JSON. A raw Annex-B
/// file is read by Bitstream alone; anything else (MP4, MOV, MKV, MPEG-TS …) is demuxed by libavformat first, its
/// packets turned into Annex-B as `rtenc annexb` does, as ffprobe reads any container.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print the NAL units, access units and parameter sets of an H.264 stream (.h264, .mp4, .mkv, .ts …) as JSON.",
        discussion: """
            Keys are the H.264 syntax-element names in snake_case, plus derived width, height and fps. Values the \
            parsers accept although the specification does not (as FFmpeg accepts them: out-of-range values that \
            derive nothing, a VUI cut short) are listed under "warnings", and in --summary.
            """
    )

    @Argument(help: "An Annex-B H.264 file (.h264, .264), or any file with an H.264 track libavformat reads.")
    var file: String

    @Flag(help: "Print a short table for people instead of JSON.")
    var summary = false

    func run() throws {
        let report = try Self.report(file)
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
}

extension InspectCommand {
    /// The stream report of `path`: Annex-B when the file starts like one (zero bytes then 00 00 01), else the
    /// H.264 track libavformat demuxes from it.
    static func report(_ path: String) throws -> StreamReport {
        let head = try readInput(path, command: "inspect", limit: 12)
        guard !Self.startsLikeAnnexB(head) else {
            let bytes = try readInput(path, command: "inspect")
            do {
                return try StreamReport(annexB: bytes)
            } catch {
                throw CLIError("inspect: \(path) is not a readable H.264 Annex-B stream: \(error)")
            }
        }
        let annexB: [UInt8]
        let container: String
        let recordWarnings: [BitstreamWarning]
        do {
            let reader = try ContainerAnnexBReader(path: path)
            container = reader.formatName
            recordWarnings = reader.configuration?.warnings ?? []
            annexB = try reader.readAll()
        } catch {
            throw CLIError("inspect: \(path) is neither an H.264 Annex-B stream (no start code at its start) "
                + "nor a file with an H.264 track libavformat reads: \(error)")
        }
        do {
            var report = try StreamReport(annexB: annexB, container: container)
            report.warnings.insert(
                contentsOf: recordWarnings.map { .init(nalUnit: nil, structure: "avcC", warning: $0) }, at: 0)
            return report
        } catch {
            throw CLIError("inspect: the H.264 track of \(path) (\(container)) is not readable: \(error)")
        }
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
