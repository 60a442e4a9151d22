import Bitstream
import MediaIO

/// Access units of an existing H.264 file, whatever its framing: an Annex-B `.h264` (grouped into access units by
/// §7.4.1.2.3, timed at `--fps`) or an `.mp4`/`.mov` (AVCC samples converted to Annex-B, SPS/PPS put in front of
/// IDRs, timed by the container).
enum EncodedFileReader {
    case annexB(AnnexBFileReader)
    case mp4(MP4SampleReader)

    /// Annex-B framing with the NAL unit ranges; `decodeTime` is when the access unit must leave (an MP4 with
    /// B-frames sends the anchor before the B-frames shown before it). Annex-B files carry no timing, so both
    /// times are index / fps there.
    typealias AccessUnit = CodedAccessUnit

    static func open(path: String, frameRate: Rational, command: String) throws -> EncodedFileReader {
        let lower = path.lowercased()
        do {
            if [".mp4", ".mov", ".m4v"].contains(where: lower.hasSuffix) {
                return .mp4(try MP4SampleReader(path: path))
            }
            return .annexB(try AnnexBFileReader(path: path, frameRate: frameRate))
        } catch {
            throw CLIError("\(command): cannot read \(path): \(error)")
        }
    }

    /// The first SPS and PPS, when the container has them out of band (MP4's avcC).
    var parameterSets: (sps: [UInt8], pps: [UInt8])? {
        guard case .mp4(let reader) = self, let sps = reader.configuration.sequenceParameterSets.first,
              let pps = reader.configuration.pictureParameterSets.first else { return nil }
        return (sps, pps)
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
