import Bitstream
import Testing
@testable import MediaIO

@Suite struct Y4MHeaderTests {
    static let valid = "YUV4MPEG2 W64 H48 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG\n"

    @Test(arguments: [
        // header line                                           W    H    F            colorspace
        ("YUV4MPEG2 W64 H48 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG\n", 64, 48, Rational(30000, 1001), Y4MHeader.Colorspace.c420jpeg),
        ("YUV4MPEG2 W1920 H1080 F25:1\n",                     1920, 1080, Rational(25, 1), .c420jpeg),   // C defaults to 420jpeg
        ("YUV4MPEG2 H2 W2\n",                                    2,    2, Rational(25, 1), .c420jpeg),   // any order; F defaults to 25
        ("YUV4MPEG2 W65 H49 F60:1 I? C420mpeg2\n",              65,   49, Rational(60, 1), .c420mpeg2),  // odd sizes are legal
        ("YUV4MPEG2 W8 H8 F1:1 C420paldv\n",                     8,    8, Rational(1, 1), .c420paldv),
        ("YUV4MPEG2 W8 H8 F1:1 C420\n",                          8,    8, Rational(1, 1), .c420),
        ("YUV4MPEG2 W8 H8 F1:1 Cmono\n",                         8,    8, Rational(1, 1), .mono),
    ])
    func parsesValidHeaders(line: String, width: Int, height: Int, rate: Rational, colorspace: Y4MHeader.Colorspace) throws {
        let header = try Y4MHeader.parse(Array(line.utf8))
        #expect(header.width == width)
        #expect(header.height == height)
        #expect(header.frameRate == rate)
        #expect(header.colorspace == colorspace)
    }

    @Test(arguments: [
        ("", MediaIOError.Code.emptyInput),
        ("YUV4MPEG W64 H48\n", .invalidFormat),                    // wrong magic
        ("RIFF....WAVEfmt \n", .invalidFormat),
        ("YUV4MPEG2W64 H48\n", .invalidFormat),                    // no space after the magic
        ("YUV4MPEG2 H48 F30:1\n", .invalidFormat),                 // no W
        ("YUV4MPEG2 W64 F30:1\n", .invalidFormat),                 // no H
        ("YUV4MPEG2 W0 H48\n", .invalidFormat),
        ("YUV4MPEG2 W-4 H48\n", .invalidFormat),
        ("YUV4MPEG2 Wabc H48\n", .invalidFormat),
        ("YUV4MPEG2 W16386 H48\n", .limitExceeded),                // past maximumDimension
        ("YUV4MPEG2 W64 H99999999999999999999\n", .invalidFormat),  // does not even fit an Int
        ("YUV4MPEG2 W64 H48 F30\n", .invalidFormat),               // rate not n:d
        ("YUV4MPEG2 W64 H48 F30:0\n", .invalidFormat),
        ("YUV4MPEG2 W64 H48 It\n", .unsupported),                  // interlaced, top field first
        ("YUV4MPEG2 W64 H48 Ib\n", .unsupported),
        ("YUV4MPEG2 W64 H48 Im\n", .unsupported),
        ("YUV4MPEG2 W64 H48 Iz\n", .invalidFormat),
        ("YUV4MPEG2 W64 H48 C422\n", .unsupported),
        ("YUV4MPEG2 W64 H48 C444\n", .unsupported),
        ("YUV4MPEG2 W64 H48 C420p10\n", .unsupported),
        ("YUV4MPEG2 W64 H48 Q7\n", .invalidFormat),                // unknown tag
        ("YUV4MPEG2 W64 H48", .truncated),                         // no newline
    ])
    func rejectsBadHeaders(line: String, code: MediaIOError.Code) {
        let error = #expect(throws: MediaIOError.self) { try Y4MHeader.parse(Array(line.utf8)) }
        #expect(error?.code == code)
    }

    @Test func unsupportedColorspaceSaysHowToConvert() {
        let error = #expect(throws: MediaIOError.self) { try Y4MHeader.parse(Array("YUV4MPEG2 W64 H48 C444\n".utf8)) }
        #expect(error?.reason.contains("ffmpeg -pix_fmt yuv420p") == true)
    }

    @Test func longLineWithoutNewlineIsBounded() {
        let line = Array("YUV4MPEG2 ".utf8) + [UInt8](repeating: UInt8(ascii: "X"), count: Y4MHeader.maximumLength)
        let error = #expect(throws: MediaIOError.self) { try Y4MHeader.parse(line) }
        #expect(error?.code == .limitExceeded)
    }

    /// Drip feed: every strict prefix of a valid header fails cleanly; only the whole line parses.
    @Test func everyStrictPrefixFails() throws {
        let bytes = Array(Self.valid.utf8)
        for length in 0..<bytes.count {
            let error = #expect(throws: MediaIOError.self) { try Y4MHeader.parse(bytes.prefix(length)) }
            #expect(error?.code == (length == 0 ? .emptyInput : .truncated), "prefix of \(length) bytes")
        }
        #expect(try Y4MHeader.parse(bytes).width == 64)
    }

    @Test func frameByteCountRoundsChromaUp() throws {
        #expect(try Y4MHeader.parse(Array("YUV4MPEG2 W65 H49\n".utf8)).frameByteCount == 65 * 49 + 2 * 33 * 25)
        #expect(try Y4MHeader.parse(Array("YUV4MPEG2 W64 H48 Cmono\n".utf8)).frameByteCount == 64 * 48)
    }
}
