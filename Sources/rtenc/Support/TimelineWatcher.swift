#if canImport(Glibc)
import Glibc
#endif
import Composition
import Dispatch
import Logging
import Synchronization

/// `rtenc stream T.json` plays each saved version of its timeline file: the file is looked at four times a second
/// (stat: inode, size, modification time — a rename into place and a rewrite in place both count) and, once it has
/// stayed the same for one look (so a save in progress is not read half written), read, planned and handed to the
/// playing source's `TimelineEditor`, which takes it at the next frame and reopens only the readers it touched.
/// A version that does not parse, plan or open (a missing clip, a transition longer than its item, another canvas
/// size) is refused in one line on stderr and the stream keeps playing the version before it.
///
/// Why watching the file rather than a control socket or stdin commands: the timeline already is a file the user
/// edits and checks with `rtenc timeline check`; saving it is the whole interface, works from any editor or script
/// (write a temporary file and rename it), and needs no protocol to learn.
final class TimelineWatcher: @unchecked Sendable {
    // @unchecked: the timer is a libdispatch object (safe from any thread: resumed and cancelled here, its handler on
    // its queue); everything else is immutable or behind `state`'s Mutex.
    /// What stat says about the file; a change of any of it is a new version.
    struct Signature: Equatable {
        let device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int

        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            seconds = status.st_mtim.tv_sec
            nanoseconds = status.st_mtim.tv_nsec
        }
    }

    static let interval = DispatchTimeInterval.milliseconds(250)

    private let path: String
    private let forceLoop: Bool
    private let editor: TimelineEditor
    private let logger: Logger
    /// The version last played or refused, and a changed one seen once (read when the next look sees it again).
    private let state: Mutex<(settled: Signature?, seen: Signature?)>
    private let timer: DispatchSourceTimer

    init(path: String, forceLoop: Bool, editor: TimelineEditor, logger: Logger) {
        self.path = path
        self.forceLoop = forceLoop
        self.editor = editor
        self.logger = logger
        state = Mutex((Signature(path: path), nil))
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "rtenc.timeline-watcher"))
    }

    func start() {
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
        timer.setEventHandler { [weak self] in self?.look() }
        timer.resume()
    }

    func stop() {
        timer.cancel()
    }

    private func look() {
        let current = Signature(path: path)
        let ready = state.withLock { state -> Bool in
            guard current != state.settled else {
                state.seen = nil
                return false
            }
            defer { state.seen = current }
            return current != nil && current == state.seen // unchanged for one look: the save is complete
        }
        guard ready else { return }
        state.withLock { $0 = (current, nil) }
        do {
            let file = try TimelineFile(path: path, command: "stream", forceLoop: forceLoop)
            do {
                try editor.submit(file.plan.timeline)
            } catch {
                throw CLIError("stream: timeline \(path): \(error)")
            }
            logger.info("timeline \(path) changed: playing the new version from the next frame")
        } catch {
            logger.error("\(error); still playing the previous version")
        }
    }
}
