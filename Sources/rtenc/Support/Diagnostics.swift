#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Logging

/// swift-log set up once for the CLI: diagnostics go to stderr as "rtenc: warning: …" lines.
enum Diagnostics {
    static func bootstrap() {
        LoggingSystem.bootstrap { label in
            var handler = OneLineLogHandler(label: label)
            handler.logLevel = ProcessInfo.processInfo.environment["RTENC_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
            return handler
        }
    }

    /// Where libav's own messages go: nowhere unless `RTENC_LIBAV_LOG` is set, to a level name or to 1 (= trace).
    static func libavLogger(_ setting: String?) -> Logger {
        var logger = Logger(label: "rtenc.libav")
        logger.logLevel = setting.map { Logger.Level(rawValue: $0) ?? .trace } ?? .critical
        return logger
    }

    static func logger(quiet: Bool) -> Logger {
        var logger = Logger(label: "rtenc")
        if quiet { logger.logLevel = .error }
        return logger
    }
}

/// One line per message, "rtenc: <level>: <message>", no timestamps: a CLI's stderr, not a server log.
struct OneLineLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let prefix = event.level == .info ? "" : "\(event.level): "
        Console.standardError.write("rtenc: \(prefix)\(event.message)\n")
    }
}

/// A status line that rewrites itself on a terminal and prints plain lines otherwise (logs, pipes, CI).
struct StatusLine {
    let isTerminal = isatty(STDERR_FILENO) == 1
    private var shown = false

    mutating func show(_ text: String) {
        if isTerminal {
            Console.standardError.write("\r\u{1B}[K\(text)")
            shown = true
        } else {
            Console.standardError.write("\(text)\n")
        }
    }

    /// Ends a terminal status line so the next output starts on a fresh line.
    mutating func finish() {
        if isTerminal && shown { Console.standardError.write(Data("\n".utf8)) }
        shown = false
    }
}
