import Bitstream
import MediaCore

/// The synthetic codec in the loop: each frame becomes an H.264 access unit of its size, so the real payloader and
/// send session packetize it (SPS and PPS before a keyframe, one slice of filler).
extension SyntheticCodec: SimulatedCodec {
    /// SPS and PPS of x264 High@3.1 1280×720: the shape of a keyframe's parameter sets (not parsed on this path).
    static let sequenceParameterSet: [UInt8] = [0x67, 0x64, 0x00, 0x1F, 0xAC, 0xD9, 0x40, 0x50, 0x05, 0xBB, 0x01, 0x10, 0x00,
                                                0x00, 0x03, 0x00, 0x10, 0x00, 0x00, 0x03, 0x03, 0xC0, 0xF1, 0x83, 0x19, 0x60]
    static let pictureParameterSet: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]

    public var parameterSets: (sequence: [UInt8], picture: [UInt8])? { (Self.sequenceParameterSet, Self.pictureParameterSet) }

    public mutating func encode(at now: Int64, presentationTime: MediaTime, budget: Int?,
                                random: inout SimulationRandom) -> SimulatedFrame? {
        guard let frame = encode(at: now, budget: budget, random: &random) else { return nil }
        return SimulatedFrame(accessUnit: Self.accessUnit(frame, presentationTime: presentationTime), bytes: frame.bytes)
    }

    /// An access unit of `frame.bytes` bytes: SPS and PPS before a keyframe, one slice of filler after the header.
    /// The filler is never 0, so no start code appears inside.
    static func accessUnit(_ frame: Frame, presentationTime: MediaTime) -> CodedAccessUnit {
        var nalUnits: [[UInt8]] = frame.isKeyframe ? [sequenceParameterSet, pictureParameterSet] : []
        let sliceBytes = max(2, frame.bytes - (frame.isKeyframe ? 32 : 0))
        var slice = [UInt8](repeating: 0xA5, count: sliceBytes)
        slice[0] = frame.isKeyframe ? 0x65 : 0x41  // IDR slice (NRI 3) / non-IDR slice (NRI 2)
        nalUnits.append(slice)
        return CodedAccessUnit(joiningAnnexB: nalUnits, codec: .h264, isKeyframe: frame.isKeyframe, presentationTime: presentationTime)
    }
}
