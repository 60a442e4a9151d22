import ArgumentParser

/// `rtenc`: raw video → H.264 → RTP, and the tools around it.
@main
struct RTEnc: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rtenc",
        abstract: "Real-time H.264 encoder and RTP streaming toolkit.",
        discussion: """
            With no subcommand, `rtenc` runs `stream`: a test pattern to 127.0.0.1:5004 and stream.sdp for ffplay.
            """,
        version: "0.1.0",
        subcommands: [InspectCommand.self],
        defaultSubcommand: InspectCommand.self
    )
}
