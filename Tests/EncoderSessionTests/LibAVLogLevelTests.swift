import Testing

@testable import EncoderSession

/// The one switch embedders (and the CLI) have for libav's own stderr output; process-wide, so the test restores it.
@Suite(.serialized) struct LibAVLogLevelTests {
    @Test func setsAndReadsBackEveryLevel() {
        let before = LibAVLogLevel.current
        defer { LibAVLogLevel.set(before) }
        for level in LibAVLogLevel.allCases {
            LibAVLogLevel.set(level)
            #expect(LibAVLogLevel.current == level)
        }
    }

    @Test(arguments: [
        // the AV_LOG_* values of libavutil/log.h
        (LibAVLogLevel.quiet, Int32(-8)), (.error, 16), (.warning, 24), (.info, 32), (.debug, 48),
    ])
    func mapsToLibavutilLevels(level: LibAVLogLevel, raw: Int32) {
        #expect(level.rawLevel == raw)
    }
}
