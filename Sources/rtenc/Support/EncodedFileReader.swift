import Bitstream
import MediaIO

/// Access units of an existing file, whatever its framing: an Annex-B `.h264` or `.h265`/`.hevc` (grouped into
/// access units by H.264 §7.4.1.2.3 or H.265 §7.4.2.4.4, timed at `--fps`) or an H.264 `.mp4`/`.mov` (AVCC samples
/// converted to Annex-B, SPS/PPS put in front of IDRs, timed by the container).
enum EncodedFileReader {
    case annexB(AnnexBFileReader)
    case mp4(MP4SampleReader)

    /// Annex-B framing with the NAL unit ranges; `decodeTime` is when the access unit must leave (an MP4 with
    /// B-frames sends the anchor before the B-frames shown before it). Annex-B files carry no timing, so both
    /// times are index / fps there.
    typealias AccessUnit = CodedAccessUnit

    /// `codec` (`--codec`) for an Annex-B file; nil reads it as `inspect` does: the first NAL unit's header
    /// (`VideoCodec.sniff`), else the extension (.h265/.hevc/.265), else H.264.
    static func open(path: String, frameRate: Rational, codec: VideoCodec? = nil, command: String) throws -> EncodedFileReader {
        let lower = path.lowercased()
        if [".mp4", ".mov", ".m4v"].contains(where: lower.hasSuffix) {
            // MP4SampleReader reads avcC tracks; an HEVC MP4 goes through `rtenc annexb` first.
            guard codec != .hevc else {
                throw CLIError("\(command): \(path): HEVC in MP4 is not read here; convert it with `rtenc annexb` and send the .h265")
            }
            do { return .mp4(try MP4SampleReader(path: path)) } catch { throw CLIError("\(command): cannot read \(path): \(error)") }
        }
        // An unreadable file is left to AnnexBFileReader, whose error names it.
        let codec = codec ?? InspectCommand.annexBCodec(head: (try? readInput(path, command: command, limit: 64)) ?? [], path: path)
        do {
            return .annexB(try AnnexBFileReader(path: path, frameRate: frameRate, codec: codec))
        } catch {
            throw CLIError("\(command): cannot read \(path): \(error)")
        }
    }

    var codec: VideoCodec {
        switch self {
        case .annexB(let reader): reader.codec
        case .mp4: .h264
        }
    }

    /// The first SPS and PPS, when the container has them out of band (MP4's avcC), in
    /// `codec.parameterSetNALUnitTypes` order.
    var parameterSets: [[UInt8]]? {
        guard case .mp4(let reader) = self, let sps = reader.configuration.sequenceParameterSets.first,
              let pps = reader.configuration.pictureParameterSets.first else { return nil }
        return [sps, pps]
    }

    func next(command: String) throws -> AccessUnit? {
        switch self {
        case .annexB(let reader):
            do {
                return try reader.nextAccessUnit()?.accessUnit  // the reader found the NAL units already
            } catch {
                throw CLIError("\(command): \(reader.path): \(error)")
            }
        case .mp4(let reader):
            do {
                guard let sample = try reader.nextSample() else { return nil }
                let bytes = try AVCC.toAnnexB(sample.bytes[...], lengthSize: reader.nalUnitLengthSize,
                                              parameterSets: reader.configuration)
                // The conversion put SPS/PPS in front of IDRs, so the ranges are found in what it wrote.
                let nalUnits = try AnnexB.nalUnitRanges(in: bytes[...]).map {
                    CodedAccessUnit.NALUnit(type: VideoCodec.h264.nalUnitType(firstByte: bytes[$0.lowerBound]), range: $0)
                }
                return CodedAccessUnit(codec: .h264, bytes: bytes, framing: .annexB, nalUnits: nalUnits,
                                       isKeyframe: sample.isKeyframe, presentationTime: sample.pts, decodeTime: sample.dts)
            } catch let error as BitstreamError {
                throw CLIError("\(command): \(reader.path): a sample is not valid AVCC: \(error)")
            } catch {
                throw CLIError("\(command): \(reader.path): \(error)")
            }
        }
    }
}
