#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import LibAVLog
import FoundationEssentials

/// `rtenc`: raw video → H.264 → RTP, and the tools around it.
@main
struct RTEnc: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rtenc",
        abstract: "Real-time H.264 encoder and RTP streaming toolkit.",
        version: "0.1.0",
        subcommands: [
            StreamCommand.self, ServeCommand.self, EncodeCommand.self, SendCommand.self, ReceiveCommand.self, AnnexBCommand.self,
            InspectCommand.self, PacketizeCommand.self, ProbeCommand.self, RelayCommand.self, BenchCommand.self,
            RenderCommand.self, TimelineCommand.self,
        ],
        defaultSubcommand: StreamCommand.self
    )

    /// Runs the command line. Every failure is one line on stderr starting "rtenc: ": status 64 for a usage error (as
    /// ArgumentParser has it), 1 for anything that goes wrong while running.
    static func main() async {
        Diagnostics.bootstrap()
        // libav* has its own diagnostics ("moov atom not found"); our errors already carry its reason (av_strerror),
        // so they stay quiet unless asked: RTENC_LIBAV_LOG=1 (or a level: debug, warning, …) shows them.
        LibAVLog.route(to: Diagnostics.libavLogger(ProcessInfo.processInfo.environment["RTENC_LIBAV_LOG"]))
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            // --help and --version exit 0 with their full text; a usage error is one line and status 64.
            guard exitCode(for: error) != .success else { exit(withError: error) }
            Console.standardError.write("rtenc: \(UsageMessage.oneLine(fullMessage(for: error))) (see --help)\n")
            Glibc.exit(exitCode(for: error).rawValue)
        }
        do {
            var command = command
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            Console.standardError.write("rtenc: \(error.message)\n")
            Glibc.exit(1)
        } catch {
            // `rtenc --help` parses to a help command whose run() throws the help request.
            if exitCode(for: error) == .success { exit(withError: error) }
            let message = "\(error)".replacing("\n", with: " ")
            Console.standardError.write("rtenc: \(message)\n")
            Glibc.exit(1)
        }
    }
}
