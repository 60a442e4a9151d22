import Bitstream
/// How many packets a receiver asks for, with one generic NACK (RFC 4585 §6.2.1), before the first packet it sees.
///
/// A receiver cannot see that a packet before its first one is missing, but it can infer it: a stream begins with
/// its parameter sets (an SPS, a PPS, usually one STAP-A) in front of the first IDR, so a first packet that belongs
/// to an IDR and comes without them means they were lost — most often the STAP-A just before it. The sender's NACK
/// history still holds them, so asking for the few numbers before the first packet brings them back in one round
/// trip, where a PLI would cost a new IDR and the frames until it arrives. A sender ignores numbers it never sent
/// (the stream may begin right there), and the receiver stops waiting for them after one NACK retry interval, PLI
/// being the fallback.
///
/// Not asked: when the first packet carries an SPS (the stream begins there), when the parameter sets are known
/// already (the SDP's sprop-parameter-sets), and when it is a slice of a P or B picture: the IDR then lies further
/// back than a few packets (joined late, or the whole first frame lost), and only a new one helps. Pure.
package enum StartOfStreamNACK {
    /// Numbers asked for before (the start of) an IDR slice, an SEI or a PPS: the STAP-A with the parameter sets, or
    /// SPS and PPS as single NAL unit packets, and the odd packet more.
    package static let lookBack = 4
    /// Numbers asked for before an FU-A fragment of an IDR slice without its start: the start and an unknown number
    /// of fragments are missing too. One FCI (a PID and its 16-bit bitmask) carries 17 numbers.
    package static let lookBackWithoutFragmentStart = 16

    /// How many sequence numbers to ask for just before `firstPacket`, the first one a receiver sees; nil for none.
    /// `parameterSetsKnown`: SPS and PPS are known before the stream (sprop-parameter-sets).
    package static func count(firstPacket: H264Payload, parameterSetsKnown: Bool) -> Int? {
        let content: RTPPayloadContent = switch firstPacket {
        case .single(let unit): .single(unit)
        case .aggregate(let units): .aggregate(units)
        case .fragment(let header, let start, let end, let data): .fragment(nalHeader: RebuiltNALHeader(header), start: start, end: end, data: data)
        }
        return count(firstPacket: content, codec: .h264, parameterSetsKnown: parameterSetsKnown)
    }

    /// The same for any payload format's packet (RFC 6184, RFC 7798): for HEVC the stream begins with a VPS (or
    /// an SPS), a keyframe is an IRAP picture, and the parameter sets are VPS, SPS and PPS.
    package static func count(firstPacket: RTPPayloadContent, codec: VideoCodec, parameterSetsKnown: Bool) -> Int? {
        guard !parameterSetsKnown else { return nil }
        let types = firstPacket.startingNALUnitTypes(codec)
        var fragmentWithoutStart = false
        if case .fragment(let header, let start, _, _) = firstPacket, !start {
            guard !codec.isNonRandomAccessSlice(nalUnitType: codec.nalUnitType(firstByte: header.first)) else { return nil }
            fragmentWithoutStart = true
        }
        // The stream begins here: its first parameter set (H.264's SPS; HEVC's VPS, or an SPS without one).
        if types.contains(where: { codec.parameterSetNALUnitTypes.dropLast().contains($0) }) { return nil }
        // Coded slices of pictures that are not random-access points.
        if !types.contains(where: codec.isRandomAccessSlice(nalUnitType:)), types.contains(where: codec.isNonRandomAccessSlice(nalUnitType:)) {
            return nil
        }
        return fragmentWithoutStart ? lookBackWithoutFragmentStart : lookBack
    }
}
