import Bitstream
/// The stream header of a YUV4MPEG2 file: one line of space-separated tagged fields.
///
/// ```
/// YUV4MPEG2 W640 H480 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG\n
/// ^magic    ^width ^height ^rate   ^interlacing ^aspect ^colorspace ^extension (ignored)
/// ```
/// Then each frame: `FRAME` (optionally followed by ` `-separated parameters) and `\n`, then the planes Y, Cb, Cr
/// packed with no padding. There is no formal standard; this follows the format as mjpegtools and FFmpeg write it.
public struct Y4MHeader: Sendable, Hashable {
    /// Chroma layouts named by the `C` tag.
    public enum Colorspace: String, Sendable, CaseIterable {
        // All four 4:2:0 variants differ only in chroma siting, which does not change the bytes.
        case c420jpeg = "420jpeg", c420paldv = "420paldv", c420mpeg2 = "420mpeg2", c420 = "420"
        case mono = "mono"
        case c422 = "422", c444 = "444", c444alpha = "444alpha", c411 = "411"

        var is420: Bool { self == .c420jpeg || self == .c420paldv || self == .c420mpeg2 || self == .c420 }
    }

    public var width: Int
    public var height: Int
    public var frameRate: Rational
    /// Pixel aspect ratio from the `A` tag (0:0 means unknown).
    public var pixelAspectRatio: Rational
    public var colorspace: Colorspace

    /// "YUV4MPEG2", the first bytes of every stream.
    static let magic = Array("YUV4MPEG2".utf8)
    /// The longest header line accepted. Real headers are under 100 bytes; the bound stops a file without a
    /// newline from being read whole into memory.
    public static let maximumLength = 4096
    /// The frame rate when the `F` tag is absent, as FFmpeg assumes.
    static let defaultFrameRate = Rational(25, 1)

    /// Bytes of one frame's planes after the `FRAME` line.
    public var frameByteCount: Int {
        let luma = width * height
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        return colorspace == .mono ? luma : luma + 2 * chroma
    }

    /// Parses a header line including its terminating `\n`; anything after the newline is the caller's.
    /// Every strict prefix of a valid header throws (`.emptyInput` or `.truncated`): the newline is what commits.
    public static func parse(_ line: some Collection<UInt8>) throws(MediaIOError) -> Y4MHeader {
        guard !line.isEmpty else { throw MediaIOError.make(.emptyInput, "empty input: no YUV4MPEG2 header") }
        let bytes = Array(line)
        let magicPrefix = bytes.prefix(magic.count)
        guard magicPrefix.elementsEqual(magic.prefix(magicPrefix.count)) else {
            throw .make(.invalidFormat, "not a YUV4MPEG2 stream (the header must start with \"YUV4MPEG2\")")
        }
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
            if bytes.count > maximumLength {
                throw .make(.limitExceeded, "YUV4MPEG2 header longer than \(maximumLength) bytes")
            }
            throw .make(.truncated, "YUV4MPEG2 header ends after \(bytes.count) bytes without a newline")
        }
        guard newline >= magic.count else { throw .make(.truncated, "YUV4MPEG2 header ends inside the magic") }
        return try parseFields(bytes[magic.count..<newline])
    }

    /// Parses the tagged fields after the magic, each preceded by one space.
    private static func parseFields(_ fields: ArraySlice<UInt8>) throws(MediaIOError) -> Y4MHeader {
        var width: Int?
        var height: Int?
        var frameRate = defaultFrameRate
        var aspect = Rational(0, 0)
        var colorspace = Colorspace.c420jpeg
        guard fields.isEmpty || fields.first == UInt8(ascii: " ") else {
            throw .make(.invalidFormat, "YUV4MPEG2 magic must be followed by a space")
        }
        for token in fields.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true) {
            guard let tag = token.first else { continue }
            let value = String(decoding: token.dropFirst(), as: UTF8.self)
            switch tag {
            case UInt8(ascii: "W"): width = try dimension(value, tag: "W")
            case UInt8(ascii: "H"): height = try dimension(value, tag: "H")
            case UInt8(ascii: "F"):
                frameRate = try ratio(value, tag: "F")
                guard frameRate.numerator > 0, frameRate.denominator > 0 else {
                    throw .make(.invalidFormat, "YUV4MPEG2 frame rate F\(value) must be positive")
                }
            case UInt8(ascii: "A"): aspect = try ratio(value, tag: "A")
            case UInt8(ascii: "I"):
                switch value {
                case "p", "?": break
                case "t", "b", "m":
                    throw .make(.unsupported, "interlaced YUV4MPEG2 (I\(value)) is not supported, deinterlace with ffmpeg -vf yadif")
                default: throw .make(.invalidFormat, "unknown YUV4MPEG2 interlacing I\(value)")
                }
            case UInt8(ascii: "C"):
                guard let known = Colorspace(rawValue: value) else {
                    throw .make(.unsupported, "unsupported YUV4MPEG2 colorspace C\(value), convert with ffmpeg -pix_fmt yuv420p")
                }
                colorspace = known
            case UInt8(ascii: "X"): break // Extensions (XYSCSS=…, XCOLORRANGE=…) carry nothing we use.
            default: throw .make(.invalidFormat, "unknown YUV4MPEG2 header tag \"\(String(decoding: token, as: UTF8.self))\"")
            }
        }
        guard let width, let height else { throw .make(.invalidFormat, "YUV4MPEG2 header lacks W (width) or H (height)") }
        guard colorspace.is420 || colorspace == .mono else {
            throw .make(.unsupported, "unsupported YUV4MPEG2 colorspace C\(colorspace.rawValue), convert with ffmpeg -pix_fmt yuv420p")
        }
        return Y4MHeader(width: width, height: height, frameRate: frameRate, pixelAspectRatio: aspect, colorspace: colorspace)
    }

    private static func dimension(_ text: String, tag: String) throws(MediaIOError) -> Int {
        guard let value = Int(text), value > 0 else { throw .make(.invalidFormat, "YUV4MPEG2 \(tag)\(text) is not a positive size") }
        guard value <= maximumDimension else {
            throw .make(.limitExceeded, "YUV4MPEG2 \(tag)\(value) exceeds \(maximumDimension) pixels")
        }
        return value
    }

    private static func ratio(_ text: String, tag: String) throws(MediaIOError) -> Rational {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let numerator = Int(parts[0]), let denominator = Int(parts[1]),
              numerator >= 0, denominator >= 0 else {
            throw .make(.invalidFormat, "YUV4MPEG2 \(tag)\(text) is not a ratio n:d")
        }
        return Rational(numerator, denominator)
    }
}
