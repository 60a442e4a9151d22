import Bitstream
import EncoderSession
import MediaIO

/// Where `rtenc encode` writes access units: an Annex-B `.h264`/`.h265` file (or stdout) or an `.mp4` (H.264 as
/// avc1, H.265 as hvc1).
/// Both write to a temporary name and rename on `close()`, so a failed run leaves no file pretending to be complete.
enum EncodedFileSink {
    case annexB(AnnexBFileWriter)
    case mp4(MP4Writer)

    static let h264Extensions = [".h264", ".264", ".h26l", ".avc"]
    static let hevcExtensions = [".h265", ".265", ".hevc"]
    static let mp4Extensions = [".mp4", ".mov", ".m4v"]

    /// The sink for `path`, whose extension must say the codec the file will hold (a player or ffprobe picks its
    /// parser by it): an HEVC stream in a `.h264` file, or H.264 in a `.h265`, is refused with the right name.
    static func open(path: String, width: Int, height: Int, codec: VideoCodec = .h264, command: String = "encode") throws -> EncodedFileSink {
        let lower = path.lowercased()
        let annexB = annexBExtensions(codec)
        try refuseOtherCodecsName(path, codec: codec, command: command)
        do {
            if path == "-" || annexB.contains(where: lower.hasSuffix) {
                return .annexB(try AnnexBFileWriter(path: path))
            }
            if mp4Extensions.contains(where: lower.hasSuffix) {
                return .mp4(try MP4Writer(path: path, codec: codec, width: width, height: height))
            }
        } catch {
            throw CLIError("cannot write \(path): \(error)")
        }
        let types = "use \(annexB[0]) for Annex-B or .mp4"
        throw CLIError("\(command): cannot write \(path): unknown output type (\(types))")
    }

    static func annexBExtensions(_ codec: VideoCodec) -> [String] { codec == .hevc ? hevcExtensions : h264Extensions }

    /// An Annex-B name of the other codec (`x.h264` for HEVC, `x.h265` for H.264) is refused: players and ffprobe
    /// pick their parser by it.
    static func refuseOtherCodecsName(_ path: String, codec: VideoCodec, command: String) throws {
        let other: VideoCodec = codec == .hevc ? .h264 : .hevc
        guard annexBExtensions(other).contains(where: path.lowercased().hasSuffix) else { return }
        throw CLIError("\(command): cannot write \(codec) to \(path): that name says \(other); "
            + "use \(annexBExtensions(codec)[0]) for Annex-B \(codec)")
    }

    /// `rtenc receive -o`: Annex-B only (an MP4 needs the sizes and a timeline the receiver does not write), in a
    /// name that does not say the other codec.
    static func checkAnnexBOutput(_ path: String, codec: VideoCodec, command: String) throws {
        try refuseOtherCodecsName(path, codec: codec, command: command)
        if mp4Extensions.contains(where: path.lowercased().hasSuffix) {
            throw CLIError("\(command): cannot write \(path): \(command) writes the access units as Annex-B only; "
                + "use \(annexBExtensions(codec)[0])")
        }
    }

    func write(_ frame: EncodedFrame) throws {
        do {
            switch self {
            case .annexB(let writer):
                try writer.write(frame.bytes)
            case .mp4(let writer):
                try writer.write(accessUnit: frame.bytes, pts: frame.presentationTime, dts: frame.decodeTime,
                                 isKeyframe: frame.isKeyFrame)
            }
        } catch {
            throw CLIError("cannot write output: \(error)")
        }
    }

    func close() throws {
        do {
            switch self {
            case .annexB(let writer): try writer.close()
            case .mp4(let writer): try writer.close()
            }
        } catch {
            throw CLIError("cannot finish output: \(error)")
        }
    }
}
