import ArgumentParser
import Composition
import MediaIO

/// `rtenc render timeline.json -o out.mp4`: a timeline through the `encode` path, deterministic and never dropping.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a timeline (JSON, see docs/timeline.schema.json) to an Annex-B .h264 or an .mp4 file.",
        discussion: """
            As fast as the machine allows and deterministic: every output frame is composed and encoded, none is \
            dropped, with the same encoder configuration as `encode` and `stream`. A looping timeline is rendered \
            once unless --passes says more. `rtenc timeline check` shows the plan without rendering.
            """
    )

    @Argument(help: "The timeline file (.json).")
    var timeline: String

    @OptionGroup var encoder: EncoderOptions

    @Option(name: .shortAndLong, help: "Output file: .h264 (Annex-B), .mp4, or '-' for Annex-B on stdout.")
    var output: String

    @Option(parsing: .unconditional, help: "Play the timeline this many times (timestamps continuing), 1…10000.",
            transform: OptionNumber.integer(1...10_000, unit: "passes"))
    var passes = 1

    @Option(help: "Write per-frame statistics as JSON lines to this file (as `encode` does).")
    var statsJson: String?

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    func run() throws {
        let file = try TimelineFile(path: timeline, command: "render")
        var source: any FrameSource = try file.source(command: "render", passes: passes)
        try FileEncoder(command: "render", inputName: timeline, encoder: encoder, output: output,
                        statsJson: statsJson, quiet: quiet, frameLimit: nil).run(&source)
    }
}
