import Testing
@testable import RTP
@testable import RTPOut

/// The receiver's PLI rules (`PictureRecovery`) and the sprop priming (`ParameterSetPrimer`) as case tables: each
/// case a sequence of events and what must come out of each.
struct PictureRecoveryTests {
    /// One thing that happened to the receiver: an access unit with these NAL unit types, a lost one, a decoder error.
    enum Event: Sendable, CustomStringConvertible {
        case received([UInt8])
        /// A packet in which NAL units of these types begin (its access unit not complete yet).
        case packet([UInt8])
        /// A NACK went unanswered for a retry interval.
        case retransmissionOverdue
        case lost
        case decoderFailed

        var description: String {
            switch self {
            case .received(let types): "AU \(types)"
            case .packet(let types): "packet \(types)"
            case .retransmissionOverdue: "NACK unanswered"
            case .lost: "lost"
            case .decoderFailed: "decoder error"
            }
        }
    }

    static let idrWithParameterSets: [UInt8] = [7, 8, 5]  // SPS, PPS, IDR slice (the STAP-A and the IDR)
    static let idrAlone: [UInt8] = [5, 5]                 // an IDR in two slices whose STAP-A was lost
    static let picture: [UInt8] = [1, 1]                  // a P picture in two slices

    @Test(arguments: [
        ("clean start: IDR with SPS/PPS, then pictures", [], [
            (Event.received(idrWithParameterSets), nil), (.received(picture), nil), (.received(picture), nil),
        ]),
        ("first packet (the STAP-A) lost: IDR alone, asks until an IDR with SPS/PPS", [], [
            (.received(idrAlone), .noParameterSets), (.received(picture), .noParameterSets),
            (.received(idrWithParameterSets), nil), (.received(picture), nil),
        ]),
        ("first packet lost, sprop from the SDP: IDR alone decodes", [[0x67, 0x42], [0x68, 0xCE]], [
            (.received(idrAlone), nil), (.received(picture), nil),
        ]),
        ("sprop with only an SPS: still no PPS", [[0x67, 0x42]], [
            (.received(idrAlone), .noParameterSets),
        ]),
        ("whole first access unit lost (or a late join): pictures without an IDR ask", [], [
            (.received(picture), .noKeyframe), (.received(picture), .noKeyframe), (.received(idrWithParameterSets), nil),
        ]),
        ("SPS/PPS in band earlier: a later IDR alone decodes", [], [
            (.received(idrWithParameterSets), nil), (.lost, .accessUnitLost), (.received(picture), .accessUnitLost),
            (.received(idrAlone), nil), (.received(picture), nil),
        ]),
        ("the first access unit dropped (a fragment without its start)", [], [
            (.lost, .accessUnitLost), (.received(picture), .accessUnitLost), (.received(idrWithParameterSets), nil),
        ]),
        ("the decoder rejects a picture: asks until the next IDR", [], [
            (.received(idrWithParameterSets), nil), (.decoderFailed, .decoderError), (.received(picture), .decoderError),
            (.received(idrAlone), nil),
        ]),
        ("the decoder rejects the IDR itself: asks again", [], [
            (.received(idrWithParameterSets), nil), (.decoderFailed, .decoderError), (.received(picture), .decoderError),
        ]),
        ("parameter sets alone do not end the wait", [], [
            (.received([7, 8]), .noKeyframe), (.received(idrAlone), nil),
        ]),
        ("packets of a clean start ask nothing: STAP-A, then the IDR's first fragment, then later fragments", [], [
            (.packet([7, 8, 6]), nil), (.packet([5]), nil), (.packet([]), nil), (.received(idrWithParameterSets), nil),
            (.packet([1]), nil),
        ]),
        ("first packet lost: the IDR's first fragment asks at once", [], [
            (.packet([5]), .noParameterSets), (.packet([]), nil), (.received(idrAlone), .noParameterSets),
            (.packet([7, 8, 6]), nil), (.packet([5]), nil), (.received(idrWithParameterSets), nil),
        ]),
        ("first packet lost, sprop known: the IDR's packets ask nothing", [[0x67, 0x42], [0x68, 0xCE]], [
            (.packet([5]), nil), (.received(idrAlone), nil),
        ]),
        ("a P slice's packet asks nothing (it may wait behind a hole in the first IDR); its access unit does", [], [
            (.packet([1]), nil), (.received(picture), .noKeyframe),
        ]),
        ("after a loss, packets ask nothing; access units do", [], [
            (.received(idrWithParameterSets), nil), (.lost, .accessUnitLost), (.packet([6]), nil), (.packet([1]), nil),
            (.received(picture), .accessUnitLost),
        ]),
        ("a NACK unanswered before the first picture asks for an IDR too", [], [
            (.packet([7, 8, 6]), nil), (.packet([5]), nil), (.retransmissionOverdue, .retransmissionMissing),
            (.received(idrWithParameterSets), nil), (.retransmissionOverdue, nil),
        ]),
        ("mid-stream an unanswered NACK is left to its retries; after a loss it asks", [], [
            (.received(idrWithParameterSets), nil), (.received(picture), nil), (.retransmissionOverdue, nil),
            (.lost, .accessUnitLost), (.retransmissionOverdue, .retransmissionMissing),
        ]),
    ] as [(String, [[UInt8]], [(Event, PictureRecovery.Reason?)])])
    func rules(name: String, sprop: [[UInt8]], steps: [(Event, PictureRecovery.Reason?)]) {
        var recovery = PictureRecovery(parameterSets: sprop)
        #expect(recovery.waiting == .noKeyframe, "a fresh receiver waits for an IDR")
        for (index, (event, expected)) in steps.enumerated() {
            let reason: PictureRecovery.Reason? = switch event {
            case .received(let types): recovery.accessUnitReceived(nalUnitTypes: types)
            case .packet(let types): recovery.packetReceived(nalUnitTypes: types)
            case .retransmissionOverdue: recovery.retransmissionOverdue()
            case .lost: recovery.accessUnitLost()
            case .decoderFailed: recovery.decoderFailed()
            }
            #expect(reason == expected, "\(name): step \(index) (\(event))")
            // Packets and NACKs ask, but only access units, losses and the decoder change the state.
            if case .packet = event { continue }
            if case .retransmissionOverdue = event { continue }
            #expect(recovery.waiting == expected, "\(name): step \(index) (\(event)) leaves it waiting for \(String(describing: recovery.waiting))")
        }
    }

    /// A decoder reports after the fact: a failure of an access unit from before the last decodable IDR is answered
    /// by that IDR already (no new wait, no PLI); one from after it, or without a timestamp, asks. Timestamps wrap.
    @Test(arguments: [
        (UInt32(90_000), UInt32(87_000) as UInt32?, nil as PictureRecovery.Reason?),
        (90_000, 90_000, .decoderError),  // the IDR itself
        (90_000, 93_000, .decoderError),
        (90_000, nil, .decoderError),
        (1_000, UInt32.max - 2_000, nil),  // before the IDR, across the wrap
        (UInt32.max - 2_000, 1_000, .decoderError),  // after the IDR, across the wrap
    ])
    func lateDecoderFailures(keyframe: UInt32, failed: UInt32?, expected: PictureRecovery.Reason?) {
        var recovery = PictureRecovery()
        #expect(recovery.accessUnitReceived(nalUnitTypes: Self.idrWithParameterSets, timestamp: keyframe) == nil)
        #expect(recovery.decoderFailed(timestamp: failed) == expected)
        #expect(recovery.waiting == expected)
    }

    /// Reason names as `rtenc receive` reports them in `pli_reasons`.
    @Test func reasonNames() {
        #expect(PictureRecovery.Reason.allCases.map(\.rawValue)
                    == ["no_parameter_sets", "no_keyframe", "access_unit_lost", "decoder_error", "retransmission_missing", "requested"])
    }

    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    static let newSPS: [UInt8] = [0x67, 0x64, 0x00, 0x1F]
    static let idr: [UInt8] = [0x65, 0x88, 0x84]
    static let p: [UInt8] = [0x41, 0x9A, 0x02]

    @Test(arguments: [
        ("sprop in front of an IDR that came alone", [sps, pps], [[idr], [p]], [[sps, pps, idr], [p]]),
        ("sprop in front of the first access unit even if not an IDR (the decoder then waits quietly)",
         [sps, pps], [[p], [p], [idr]], [[sps, pps, p], [p], [sps, pps, idr]]),
        ("an access unit with its own parameter sets is left alone", [sps, pps], [[sps, pps, idr], [p]], [[sps, pps, idr], [p]]),
        ("only what is missing is added", [sps, pps], [[pps, idr]], [[sps, pps, idr]]),
        ("in-band parameter sets replace the SDP's for later IDRs", [sps, pps], [[newSPS, pps, idr], [p], [idr]],
         [[newSPS, pps, idr], [p], [newSPS, pps, idr]]),
        ("without an SDP, in-band ones still fill a later IDR", [], [[sps, pps, idr], [idr]], [[sps, pps, idr], [sps, pps, idr]]),
        ("nothing known: nothing added", [], [[idr], [p]], [[idr], [p]]),
    ] as [(String, [[UInt8]], [[[UInt8]]], [[[UInt8]]])])
    func primer(name: String, sprop: [[UInt8]], units: [[[UInt8]]], expected: [[[UInt8]]]) {
        var primer = ParameterSetPrimer(parameterSets: sprop)
        let primed = units.enumerated().map { primer.prime(ReceivedAccessUnit(timestamp: UInt32($0.offset * 3000), nalUnits: $0.element)) }
        #expect(primed.map(\.nalUnits) == expected, "\(name)")
        #expect(primed.map(\.timestamp) == units.indices.map { UInt32($0 * 3000) })
    }
}
