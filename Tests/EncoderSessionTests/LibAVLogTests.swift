import CLibAV
import Foundation
import LibAVLog
import Logging
import Synchronization
import TestSupport
import Testing

@testable import EncoderSession

/// libav's messages reach the embedder's swift-log logger, and the warnings rtenc causes by design do not show up as
/// warnings. The route is process-wide, so the check that counts messages runs in a child process of its own.
@Suite struct LibAVLogTests {
    static let childVariable = "RTENC_LIBAVLOG_CHILD"
    static let isChild = ProcessInfo.processInfo.environment[childVariable] == "1"

    /// Every message that reached the handler, with its level and metadata.
    final class Capture: Sendable {
        let entries = Mutex<[(level: Logger.Level, message: String, byDesign: Bool)]>([])

        func logger(level: Logger.Level) -> Logger {
            var logger = Logger(label: "test.libav") { _ in CaptureHandler(capture: self) }
            logger.logLevel = level
            return logger
        }
    }

    struct CaptureHandler: LogHandler {
        let capture: Capture
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            capture.entries.withLock { $0.append((event.level, "\(event.message)", event.metadata?["by-design"] != nil)) }
        }
    }

    @Test(arguments: [
        (AV_LOG_PANIC, Logger.Level.critical), (AV_LOG_FATAL, .critical), (AV_LOG_ERROR, .error),
        (AV_LOG_WARNING, .warning), (AV_LOG_INFO, .debug), (AV_LOG_VERBOSE, .debug), (AV_LOG_DEBUG, .trace),
        (AV_LOG_TRACE, .trace),
    ])
    func libavLevelsMapToLoggerLevels(libav: Int32, expected: Logger.Level) {
        #expect(LibAVLog.loggerLevel(forLibAV: libav) == expected)
        // The level libav is set to for `expected` lets the message through.
        #expect(libav <= LibAVLog.libavLevel(for: expected))
    }

    @Test(arguments: [
        ("[libx264 @ 0x55d] max bitrate less than average bitrate, assuming CBR", true),
        ("[libx264 @ 0x55d] VBV bitrate (16800) > level limit (14000)", true),
        ("[libx264 @ 0x55d] VBV buffer size cannot be smaller than one frame, using 560 kbit", true),
        ("[AVHWDeviceContext @ 0x5] No VA display found for device /dev/dri/renderD128.", true),
        ("[mov,mp4,m4a,3gp,3g2,mj2 @ 0x5] moov atom not found", false),
        ("[libx264 @ 0x55d] using cpu capabilities: MMX2 SSE2Fast", false),
    ])
    func byDesignMessagesAreRecognised(line: String, byDesign: Bool) {
        #expect((LibAVLog.ByDesign.reason(for: line) != nil) == byDesign)
    }

    /// A real-time session with the rate controller at work (a bitrate step) and the automatic encoder choice (a
    /// failed VA-API probe here): libav's lines all arrive at the logger, none of them at warning or above.
    @Test(.enabled(if: isChild)) func sessionLogsNothingAboveDebugThroughTheRoute() throws {
        let capture = Capture()
        LibAVLog.route(to: capture.logger(level: .trace))
        var configuration = Configuration.realTimeCommunication(width: 640, height: 360, averageBitRate: 1_000_000)
        configuration.encoder = .automatic
        let session = try CompressionSession(configuration: configuration)
        for index in 0..<90 {
            if index == 30 { try session.setAverageBitRate(300_000) }
            if index == 60 { try session.setAverageBitRate(1_500_000) }
            try session.encode(
                TestMedia.pattern(width: 640, height: 360, index: index), presentationTime: TestMedia.time(index))
        }
        session.invalidate()
        // A message logged straight through av_log takes the same route.
        rtenc_log_emit(AV_LOG_ERROR, "a real libav error\n")
        let entries = capture.entries.withLock { $0 }
        for entry in entries where entry.level >= .warning && !entry.message.contains("a real libav error") {
            print("LIBAVLOG unexpected \(entry.level): \(entry.message)")
        }
        #expect(entries.contains { $0.byDesign && $0.message.contains("assuming CBR") })
        #expect(entries.contains { $0.level == .error && $0.message == "a real libav error" })
        #expect(!entries.contains { $0.level >= .warning && $0.message != "a real libav error" })
        print("LIBAVLOG \(entries.count) messages, \(entries.filter(\.byDesign).count) by design")
    }

    @Test(.enabled(if: !isChild), .timeLimit(.minutes(2))) func libavMessagesGoThroughSwiftLogInAChildProcess() throws {
        let result = try ChildTest.run(
            filter: "sessionLogsNothingAboveDebugThroughTheRoute", marking: Self.childVariable, timeout: 100)
        let text = result.stdoutText + result.stderrText
        print(text.split(separator: "\n").filter { $0.contains("LIBAVLOG") }.joined(separator: "\n"))
        #expect(!result.timedOut)
        #expect(result.status == 0, "\(text.suffix(2000))")
        #expect(text.contains("LIBAVLOG"))
        // Nothing of libav's reached the child's stderr on its own.
        #expect(!result.stderrText.contains("[libx264 @"))
    }
}
