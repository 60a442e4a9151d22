import Bitstream
import EncoderSession
import MediaIO

/// Where `rtenc encode` writes access units: an Annex-B `.h264` file (or stdout) or an `.mp4`.
/// Both write to a temporary name and rename on `close()`, so a failed run leaves no file pretending to be complete.
enum EncodedFileSink {
    case annexB(AnnexBFileWriter)
    case mp4(MP4Writer)

    static func open(path: String, width: Int, height: Int, command: String = "encode") throws -> EncodedFileSink {
        let lower = path.lowercased()
        do {
            if path == "-" || [".h264", ".264", ".h26l", ".avc"].contains(where: lower.hasSuffix) {
                return .annexB(try AnnexBFileWriter(path: path))
            }
            if [".mp4", ".mov", ".m4v"].contains(where: lower.hasSuffix) {
                return .mp4(try MP4Writer(path: path, width: width, height: height))
            }
        } catch {
            throw CLIError("cannot write \(path): \(error)")
        }
        throw CLIError("\(command): cannot write \(path): unknown output type (use .h264 for Annex-B or .mp4)")
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
