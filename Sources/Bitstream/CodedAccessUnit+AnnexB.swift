import MediaCore

extension CodedAccessUnit {
    /// `nalUnits` (each from its header on, no start code) joined as one Annex-B access unit with 4-byte start codes;
    /// each NAL unit's range and type are laid down while joining, so nothing scans the bytes afterwards.
    public init<NALUnits: Collection>(
        joiningAnnexB nalUnits: NALUnits, codec: VideoCodec, isKeyframe: Bool, presentationTime: MediaTime,
        decodeTime: MediaTime? = nil
    ) where NALUnits.Element: Collection<UInt8> {
        var ranges: [NALUnit] = []
        ranges.reserveCapacity(nalUnits.count)
        var offset = 0
        for unit in nalUnits {
            offset += AnnexB.startCode.count
            ranges.append(NALUnit(type: unit.first.map(codec.nalUnitType(firstByte:)) ?? 0, range: offset ..< offset + unit.count))
            offset += unit.count
        }
        self.init(codec: codec, bytes: AnnexB.join(nalUnits), framing: .annexB, nalUnits: ranges, isKeyframe: isKeyframe,
                  presentationTime: presentationTime, decodeTime: decodeTime)
    }
}
