import CLibAV
import Logging
import Synchronization

/// Where libav's own messages go: libavcodec's, libavformat's, and what libx264 and VA-API say through them.
///
/// libav writes to the process's stderr unless told otherwise, which an app embedding rtenc cannot switch off or
/// redirect. The first time rtenc opens anything of libav it routes these messages through swift-log instead,
/// under the label `rtenc.libav`, so the host's `LoggingSystem.bootstrap` decides where they go and at what level.
/// `route(to:)` picks another logger (call it again after changing that logger's level: libav does not even format
/// messages below it).
///
/// Levels: libav's panic/fatal → `critical`, error → `error`, warning → `warning`, info and verbose → `debug` (the
/// per-stream summaries libx264 prints at close are chatter for a library user), debug and trace → `trace`.
/// Messages that rtenc causes by design (see `ByDesign`) come down to `debug`, with the reason in the metadata.
public enum LibAVLog {
    private struct Route: Sendable {
        var logger: Logger
        var chosenByHost: Bool
    }

    private static let route = Mutex<Route?>(nil)

    /// Sends libav's messages to `logger` from now on (process-wide: libav has one log callback).
    public static func route(to logger: Logger) {
        install(Route(logger: logger, chosenByHost: true))
    }

    /// Gives libav its own stderr output back (libav's default callback and level).
    public static func restoreLibAVDefault() {
        route.withLock { $0 = Route(logger: Logger(label: "rtenc.libav"), chosenByHost: true) }
        rtenc_log_install(nil, AV_LOG_INFO)
    }

    /// Routes to `Logger(label: "rtenc.libav")` unless the host has chosen already. rtenc's libav layers call this
    /// before their first libav call; it is cheap after the first time.
    package static func installDefaultRoute() {
        let installed = route.withLock { $0 != nil }
        guard !installed else { return }
        install(Route(logger: Logger(label: "rtenc.libav"), chosenByHost: false), onlyIfUnset: true)
    }

    private static func install(_ new: Route, onlyIfUnset: Bool = false) {
        let installed = route.withLock { current -> Bool in
            if onlyIfUnset, current != nil { return false }
            current = new
            return true
        }
        guard installed else { return }
        rtenc_log_install({ level, line in
            guard let line else { return }
            LibAVLog.deliver(level: level, line: String(cString: line))
        }, libavLevel(for: new.logger.logLevel))
    }

    private static func deliver(level: Int32, line: String) {
        guard let logger = route.withLock({ $0?.logger }) else { return }
        if let reason = ByDesign.reason(for: line) {
            logger.debug("\(line)", metadata: ["by-design": "\(reason)"])
        } else {
            logger.log(level: loggerLevel(forLibAV: level), "\(line)")
        }
    }

    /// swift-log's level for a libav level (AV_LOG_*).
    package static func loggerLevel(forLibAV level: Int32) -> Logger.Level {
        switch level {
        case ...AV_LOG_FATAL: .critical
        case ...AV_LOG_ERROR: .error
        case ...AV_LOG_WARNING: .warning
        case ...AV_LOG_VERBOSE: .debug
        default: .trace
        }
    }

    /// The most verbose libav level whose messages `level` lets through; libav skips formatting the rest.
    package static func libavLevel(for level: Logger.Level) -> Int32 {
        switch level {
        case .trace: AV_LOG_TRACE
        case .debug: AV_LOG_VERBOSE
        case .info, .notice, .warning: AV_LOG_WARNING
        case .error: AV_LOG_ERROR
        case .critical: AV_LOG_FATAL
        }
    }
}
