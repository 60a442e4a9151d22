import CLibAV
import LibAVSupport
import Testing

@testable import EncoderSession

/// The shared libav status layer (LibAVSupport) and EncoderSession's chokepoint over it: FFmpeg's own text for a
/// status, the loop states kept apart from errors, ENOMEM always reported as `.outOfMemory`.
@Suite struct LibAVStatusTests {
    @Test(arguments: [
        (LibAV.endOfFile, "End of file"),
        (LibAV.again, "Resource temporarily unavailable"),
        (LibAV.outOfMemory, "Cannot allocate memory"),
        (rtenc_encoder_averror_encoder_not_found(), "Encoder not found"),
        (Int32(-1_000_000), "Error number -1000000 occurred"),
    ])
    func messagesAreFFmpegs(status: Int32, text: String) {
        #expect(LibAV.message(for: status) == text)
    }

    @Test func loopStatesAreDistinctNegativeCodes() {
        #expect(LibAV.again < 0 && LibAV.endOfFile < 0 && LibAV.again != LibAV.endOfFile)
        #expect(LibAV.noTimestamp == Int64.min)
    }

    @Test func theChokepointKeepsTheStatusAndNamesOutOfMemory() {
        let failed = LibAV.error(.encodeFailed, "avcodec_send_frame failed", averror: LibAV.endOfFile)
        #expect(failed.code == .encodeFailed)
        #expect(failed.averror == LibAV.endOfFile)
        #expect(failed.libavMessage == "End of file")
        #expect(LibAV.error(.encodeFailed, "av_frame_get_buffer failed", averror: LibAV.outOfMemory).code == .outOfMemory)
        #expect(throws: Never.self) { try LibAV.check(0, "ok") }
        #expect(throws: EncoderSessionError.self) { try LibAV.check(LibAV.again, "avcodec_receive_packet") }
    }
}
