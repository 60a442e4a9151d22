import CLibAV

/// How much libav* (libavcodec, libavformat, libswscale, and x264 through libavcodec) writes to the process's stderr
/// on its own ("moov atom not found", x264's banner). The library's errors already carry libav's reason
/// (`av_strerror`), so an application usually wants it quiet. Process-wide, like `av_log_set_level`.
public enum LibAVLogLevel: Sendable, Hashable, CaseIterable {
    /// Nothing (AV_LOG_QUIET).
    case quiet
    /// Errors only (AV_LOG_ERROR).
    case error
    /// Warnings and errors (AV_LOG_WARNING).
    case warning
    /// libav's default (AV_LOG_INFO).
    case info
    /// Everything up to debugging detail (AV_LOG_DEBUG).
    case debug

    var rawLevel: Int32 {
        switch self {
        case .quiet: AV_LOG_QUIET
        case .error: AV_LOG_ERROR
        case .warning: AV_LOG_WARNING
        case .info: AV_LOG_INFO
        case .debug: AV_LOG_DEBUG
        }
    }

    /// Sets libav's log level for the whole process (av_log_set_level).
    public static func set(_ level: LibAVLogLevel) {
        av_log_set_level(level.rawLevel)
    }

    /// The level libav logs at now, rounded down to the nearest named level (av_log_get_level).
    public static var current: LibAVLogLevel {
        let raw = av_log_get_level()
        return allCases.last { $0.rawLevel <= raw } ?? .quiet
    }
}
