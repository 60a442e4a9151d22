#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Bitstream
import FoundationEssentials

/// `rtenc inspect FILE`: every NAL unit, access unit and parameter set of an Annex-B stream, as JSON.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print the NAL units, access units and parameter sets of an Annex-B H.264 file as JSON.",
        discussion: "Keys are the H.264 syntax-element names in snake_case, plus derived width, height and fps."
    )

    @Argument(help: "An Annex-B H.264 file (.h264, .264).")
    var file: String

    @Flag(help: "Print a short table for people instead of JSON.")
    var summary = false

    func run() throws {
        let bytes = try readInput(file, command: "inspect")
        let report: StreamReport
        do {
            report = try StreamReport(annexB: bytes)
        } catch {
            throw CLIError("inspect: \(file) is not a readable H.264 Annex-B stream: \(error)")
        }
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

/// Reads a whole input file, turning every failure into one line naming the file and the reason.
func readInput(_ path: String, command: String) throws -> [UInt8] {
    var isDirectory = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw CLIError("\(command): cannot read \(path): no such file")
    }
    guard !isDirectory else {
        throw CLIError("\(command): cannot read \(path): is a directory")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw CLIError("\(command): cannot read \(path): permission denied or unreadable")
    }
    return [UInt8](data)
}
