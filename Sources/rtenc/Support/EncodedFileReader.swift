import Bitstream
import MediaIO

/// Access units of an existing file, whatever its framing: an Annex-B `.h264` or `.h265`/`.hevc` (grouped into
/// access units by H.264 §7.4.1.2.3 or H.265 §7.4.2.4.4, timed at `--fps`) or an H.264 or H.265 `.mp4`/`.mov`
/// (length-prefixed samples converted to Annex-B, the avcC's SPS/PPS or the hvcC's VPS/SPS/PPS put in front of every
/// IDR/IRAP picture that lacks them, timed by the container; the codec is the file's).
enum EncodedFileReader {
    case annexB(AnnexBFileReader)
    case mp4(MP4SampleReader)

    /// Annex-B framing with the NAL unit ranges; `decodeTime` is when the access unit must leave (an MP4 with
    /// B-frames sends the anchor before the B-frames shown before it). Annex-B files carry no timing, so both
    /// times are index / fps there.
    typealias AccessUnit = CodedAccessUnit

    /// `codec` (`--codec`) for an Annex-B file; nil reads it as `inspect` does: the first NAL unit's header
    /// (`VideoCodec.sniff`), else the extension (.h265/.hevc/.265), else H.264. An MP4's codec is its track's; a
    /// `--codec` that says otherwise is refused.
    static func open(path: String, frameRate: Rational, codec: VideoCodec? = nil, command: String) throws -> EncodedFileReader {
        let lower = path.lowercased()
        if [".mp4", ".mov", ".m4v"].contains(where: lower.hasSuffix) {
            let reader: MP4SampleReader
            do { reader = try MP4SampleReader(path: path) } catch { throw CLIError("\(command): cannot read \(path): \(error)") }
            if let codec, codec != reader.codec {
                throw CLIError("\(command): the video track of \(path) is \(CodecArgument.name(reader.codec)), "
                    + "not \(CodecArgument.name(codec)) as --codec says (the codec of an MP4 comes from the file)")
            }
            return .mp4(reader)
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
        case .mp4(let reader): reader.codec
        }
    }

    /// The first parameter set of each type, when the container has them out of band (MP4's avcC: SPS, PPS; hvcC:
    /// VPS, SPS, PPS), in `codec.parameterSetNALUnitTypes` order; nil when a type is missing from the record.
    var parameterSets: [[UInt8]]? {
        guard case .mp4(let reader) = self else { return nil }
        let first = reader.parameterSets.inBandParameterSets.compactMap(\.nalUnits.first)
        return first.count == reader.codec.parameterSetNALUnitTypes.count ? first : nil
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
                                              parameterSets: reader.parameterSets)
                // The conversion put the parameter sets in front of IDR/IRAP pictures, so the ranges are found in
                // what it wrote.
                let nalUnits = try AnnexB.nalUnitRanges(in: bytes[...]).map {
                    CodedAccessUnit.NALUnit(type: reader.codec.nalUnitType(firstByte: bytes[$0.lowerBound]), range: $0)
                }
                return CodedAccessUnit(codec: reader.codec, bytes: bytes, framing: .annexB, nalUnits: nalUnits,
                                       isKeyframe: sample.isKeyframe, presentationTime: sample.pts, decodeTime: sample.dts)
            } catch let error as BitstreamError {
                throw CLIError("\(command): \(reader.path): a sample is not valid length-prefixed \(CodecArgument.name(reader.codec)): \(error)")
            } catch {
                throw CLIError("\(command): \(reader.path): \(error)")
            }
        }
    }
}
