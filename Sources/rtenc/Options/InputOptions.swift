#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Bitstream
import Composition
import FoundationEssentials
import MediaIO

/// Where frames come from, for `stream` and `encode`.
struct InputOptions: ParsableArguments {
    @Argument(help: "testsrc (default; testsrc:noise for noise, testsrc:barcode for the wall clock as a barcode along the top), a Y4M file, '-' for Y4M on stdin, a timeline (.json), or any video file.")
    var input = "testsrc"

    @Option(parsing: .unconditional,
            help: ArgumentHelp(
                "Output size WxH, even sides of 16…8192 (default: the input's; 1280x720 for testsrc).", valueName: "WxH"),
            transform: FrameSize.parse)
    var size: FrameSize?

    @Option(parsing: .unconditional,
            help: "Frame rate of the test pattern, 1…240 (files keep their own timing).",
            transform: OptionNumber.integer(1...240, unit: "frames per second"))
    var fps: Int?

    @Flag(help: "Repeat a file seamlessly, timestamps continuing.")
    var loop = false

    @Option(parsing: .unconditional,
            help: "Stop after this many frames.", transform: OptionNumber.integer(1...Int.max, unit: "frames"))
    var frames: Int?

    /// `live`: the frames are streamed in real time (a timeline refuses what cannot keep up, `LiveReverseBudget`).
    func open(command: String, live: Bool = false) throws -> any FrameSource {
        if TimelineFile.isTimeline(input) {
            // A timeline sets its own canvas; --loop makes it loop even when the document does not.
            guard size == nil, fps == nil else {
                throw CLIError("\(command): a timeline sets its own size and frame rate (its \"canvas\"): drop --size and --fps")
            }
            return try TimelineFile(path: input, command: command, forceLoop: loop).source(command: command, live: live)
        }
        // libavformat calls an empty file "Invalid argument"; say what is wrong.
        if let size = (try? FileManager.default.attributesOfItem(atPath: input))?[.size] as? Int, size == 0 {
            throw CLIError("\(command): input \(input) is empty")
        }
        // I420: what Y4M files and most decoders give, and what x264 takes (libx264 converts NV12 itself), so frames
        // reach the encoder with no chroma interleaving on our side.
        let options = FrameSourceOptions(
            width: size?.width, height: size?.height, frameRate: fps.map { Rational($0, 1) }, format: .i420, loop: loop)
        do {
            return try FrameSources.open(input, options: options)
        } catch {
            throw CLIError("\(command): cannot open input \(input): \(error)")
        }
    }
}
