import ArgumentParser
import Composition
import FoundationEssentials
import MediaIO

/// `rtenc timeline check timeline.json`: validates a timeline and prints its plan as JSON.
struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Work with timeline files (JSON; see docs/timeline.schema.json).",
        subcommands: [TimelineCheckCommand.self]
    )
}

struct TimelineCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a timeline and print the resolved plan as JSON.",
        discussion: """
            Prints duration_s and frames of one pass, each item's start and end on the output (seconds and frame \
            indices), the transitions, and when each item's reader is opened (pre-rolled) and closed. A negative \
            open_s on a looping timeline means the reader opens during the previous pass. Overlays are listed in z \
            order (later above) with their time range, placement (x/y/size, or the corner track), opacity, mask and \
            reader window, and maximum_overlay_readers counts the overlay readers open at once. Sources and \
            corner-track files are not opened: a missing file shows up when rendering.
            """
    )

    @Argument(help: "The timeline file (.json).")
    var timeline: String

    func run() throws {
        let file = try TimelineFile(path: timeline, command: "timeline check")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var data = try encoder.encode(PlanReport(file.plan))
        data.append(0x0A)
        Console.standardOutput.write(data)
    }
}

/// The plan as `timeline check` prints it: seconds as numbers (rounded to microseconds for reading) next to the
/// exact fractions and frame indices that decide.
struct PlanReport: Encodable {
    struct Item: Encodable {
        var index: Int
        var type: String
        var source: String?
        var startSeconds: Double
        var endSeconds: Double
        /// Output frames [firstFrame, endFrame) of the first pass.
        var firstFrame: Int
        var endFrame: Int
        var speed: String?
        var reverse: Bool?

        enum CodingKeys: String, CodingKey {
            case index, type, source, speed, reverse
            case startSeconds = "start_s", endSeconds = "end_s", firstFrame = "first_frame", endFrame = "end_frame"
        }
    }

    struct Transition: Encodable {
        var from: Int
        var to: Int
        var type: String
        var easing: String
        var startSeconds: Double
        var endSeconds: Double
        var durationSeconds: Double
        /// Wipes: the shape (or the map image), softness and inversion; slides and pushes: the direction.
        var shape: String?
        var direction: String?
        var map: String?
        var softness: Double?
        var invert: Bool?

        enum CodingKeys: String, CodingKey {
            case from, to, type, easing, shape, direction, map, softness, invert
            case startSeconds = "start_s", endSeconds = "end_s", durationSeconds = "duration_s"
        }

        init(_ span: CompositionPlan.TransitionSpan) {
            let transition = span.transition
            from = span.from
            to = span.from + 1
            type = transition.kind.rawValue
            easing = transition.easing.rawValue
            startSeconds = PlanReport.seconds(span.start)
            endSeconds = PlanReport.seconds(span.end)
            durationSeconds = PlanReport.seconds(transition.duration)
            direction = transition.direction?.rawValue
            if let wipe = transition.wipe {
                softness = wipe.softness
                invert = wipe.invert
                switch wipe.shape {
                case let .linear(way): (shape, direction) = ("linear", way.rawValue)
                case let .diagonal(corner): (shape, direction) = ("diagonal", corner.rawValue)
                case let .iris(opening): (shape, direction) = ("iris", opening.rawValue)
                case let .clock(turn): (shape, direction) = ("clock", turn.rawValue)
                case let .star(opening): (shape, direction) = ("star", opening.rawValue)
                case let .image(path): map = path
                }
            }
        }
    }

    struct Reader: Encodable {
        var item: Int
        var openSeconds: Double
        var closeSeconds: Double

        enum CodingKeys: String, CodingKey {
            case item
            case openSeconds = "open_s", closeSeconds = "close_s"
        }
    }

    struct Overlay: Encodable {
        var index: Int
        var source: String
        var inSeconds: Double
        var startSeconds: Double
        var endSeconds: Double
        var firstFrame: Int
        var endFrame: Int
        /// "rectangle" or "corner_pin".
        var placement: String
        var x: Int?
        var y: Int?
        var width: Int?
        var height: Int?
        /// The track file, or the number of inline keys.
        var cornerTrack: String?
        var cornerKeys: Int?
        var opacity: Double
        var mask: String?
        var openSeconds: Double
        var closeSeconds: Double
        var readers: Int

        enum CodingKeys: String, CodingKey {
            case index, source, placement, x, y, width, height, opacity, mask, readers
            case inSeconds = "in_s", startSeconds = "start_s", endSeconds = "end_s", firstFrame = "first_frame"
            case endFrame = "end_frame", cornerTrack = "corner_track", cornerKeys = "corner_keys"
            case openSeconds = "open_s", closeSeconds = "close_s"
        }
    }

    var version = Timeline.currentVersion
    var width: Int
    var height: Int
    var frameRate: String
    var matrix: String
    var loop: Bool
    var durationSeconds: Double
    var duration: String
    var frames: Int
    var items: [Item]
    var transitions: [Transition]
    var readers: [Reader]
    var overlays: [Overlay]
    var maximumOverlayReaders: Int

    enum CodingKeys: String, CodingKey {
        case version, width, height, matrix, loop, duration, frames, items, transitions, readers, overlays
        case maximumOverlayReaders = "maximum_overlay_readers"
        case frameRate = "frame_rate", durationSeconds = "duration_s"
    }

    init(_ plan: CompositionPlan) {
        let canvas = plan.timeline.canvas
        width = canvas.width
        height = canvas.height
        frameRate = canvas.frameRate.description
        matrix = YCbCrMatrix.forCanvas(height: canvas.height).rawValue
        loop = plan.timeline.loop
        durationSeconds = Self.seconds(plan.duration)
        duration = plan.duration.description
        frames = plan.frameCount
        items = plan.spans.map { span in
            let item = plan.timeline.items[span.item]
            let isClip = if case .clip = item.content { true } else { false }
            return Item(
                index: span.item, type: Self.typeName(item.content), source: item.source,
                startSeconds: Self.seconds(span.start), endSeconds: Self.seconds(span.end),
                firstFrame: Int((span.start * canvas.frameRate).ceiling),
                endFrame: min(Int((span.end * canvas.frameRate).ceiling), plan.frameCount),
                speed: isClip ? item.speed.description : nil, reverse: isClip ? item.reverse : nil)
        }
        transitions = plan.transitions.map(Transition.init)
        readers = plan.readerWindows.map {
            Reader(item: $0.item, openSeconds: Self.seconds($0.open), closeSeconds: Self.seconds($0.close))
        }
        overlays = plan.overlaySpans.map { span in
            let overlay = plan.timeline.overlays[span.overlay]
            var report = Overlay(
                index: span.overlay, source: overlay.source, inSeconds: Self.seconds(overlay.sourceStart),
                startSeconds: Self.seconds(span.start), endSeconds: Self.seconds(span.end),
                firstFrame: Int((span.start * canvas.frameRate).ceiling),
                endFrame: min(Int((span.end * canvas.frameRate).ceiling), plan.frameCount),
                placement: "rectangle", opacity: overlay.opacity, mask: overlay.mask?.source,
                openSeconds: Self.seconds(span.open), closeSeconds: Self.seconds(span.close), readers: span.readers)
            switch overlay.geometry {
            case let .rectangle(x, y, size):
                (report.x, report.y, report.width, report.height) = (x & ~1, y & ~1, size?.width, size?.height)
            case let .cornerPin(track, size):
                report.placement = "corner_pin"
                (report.width, report.height) = (size?.width, size?.height)
                switch track {
                case let .file(name): report.cornerTrack = name
                case let .keys(keys): report.cornerKeys = keys.count
                }
            }
            return report
        }
        maximumOverlayReaders = plan.maximumOverlayReaders
    }

    static func typeName(_ content: Timeline.Item.Content) -> String {
        switch content {
        case .clip: "clip"
        case .still: "still"
        case .color: "color"
        }
    }

    /// Seconds rounded to microseconds: exact enough to read, without 0.30000000000000004.
    static func seconds(_ value: Fraction) -> Double {
        (value.doubleValue * 1_000_000).rounded() / 1_000_000
    }
}
