#if canImport(Glibc)
import Glibc
#endif
import Composition
import FoundationEssentials

/// A timeline document on disk, read and planned for `render`, `timeline check` and the `.json` input of `stream`
/// and `encode`. Relative `source` paths are found next to the timeline file.
struct TimelineFile {
    let path: String
    let plan: CompositionPlan

    /// Reads and plans `path`; every failure is one line naming the file, the JSON path and the reason.
    init(path: String, command: String, forceLoop: Bool = false) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw CLIError("\(command): timeline \(path) \(reason)")
        }
        do {
            var timeline = try Timeline.parse([UInt8](data))
            if forceLoop { timeline.loop = true }
            plan = try CompositionPlan(timeline)
        } catch {
            throw CLIError("\(command): timeline \(path): \(error)")
        }
        self.path = path
    }

    /// The directory relative sources are found in.
    var baseDirectory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The engine over this plan: `passes` times, or as the timeline says (once, or forever when it loops); `live`
    /// for real-time playback (`LiveReverseBudget` refuses what cannot keep up).
    func source(command: String, passes: Int? = nil, live: Bool = false) throws -> CompositionSource {
        do {
            return try CompositionSource(plan: plan, baseDirectory: baseDirectory, passes: passes, live: live)
        } catch {
            // The first frame's readers open here: what they find wrong (a file that does not open, a bad corner track)
            // reads as it does when a later frame finds it; a live refusal is the timeline's.
            let what = error.code == .liveBudget ? "timeline" : "input"
            throw CLIError("\(command): \(what) \(path): \(error)")
        }
    }

    /// True for an input name `stream` and `encode` read as a timeline.
    static func isTimeline(_ input: String) -> Bool {
        input.lowercased().hasSuffix(".json")
    }
}
