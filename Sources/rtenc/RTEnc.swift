import ArgumentParser
import CLibAV
import Foundation

/// `rtenc`: raw video → H.264 → RTP, and the tools around it.
@main
struct RTEnc: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rtenc",
        abstract: "Real-time H.264 encoder and RTP streaming toolkit.",
        version: "0.1.0",
        subcommands: [InspectCommand.self, AnnexBCommand.self, ProbeCommand.self],
        defaultSubcommand: InspectCommand.self
    )

    /// Runs the command line. A `CLIError` is one line on stderr ("rtenc: …") and exit status 1; argument errors keep
    /// ArgumentParser's usage message and status 64; anything else is one line and status 1.
    static func main() async {
        // libav* writes its own diagnostics to stderr ("moov atom not found"); our errors already carry its reason
        // (av_strerror), so keep it quiet unless asked: RTENC_LIBAV_LOG=1 shows it.
        if ProcessInfo.processInfo.environment["RTENC_LIBAV_LOG"] == nil {
            av_log_set_level(AV_LOG_QUIET)
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            FileHandle.standardError.write(Data("rtenc: \(error.message)\n".utf8))
            Foundation.exit(1)
        } catch {
            exit(withError: error)
        }
    }
}
