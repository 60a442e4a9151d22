import Bitstream

/// Conveniences that take the project's shared types: Annex-B bytes and access units from Bitstream, and
/// `MediaTime` presentation times (rescaled to the 90 kHz RTP clock here, once, with rounding).
extension RTPClock {
    /// `presentationTime` on the 90 kHz clock plus `offset`, modulo 2^32.
    public static func timestamp(_ presentationTime: MediaTime, offset: UInt32 = 0) -> UInt32 {
        UInt32(truncatingIfNeeded: presentationTime.converted(to: h264ClockRate).value) &+ offset
    }
}

extension RTPSender {
    /// Sends one access unit given as Annex-B bytes (as encoders emit them).
    /// - Throws: `.invalidValue` when the bytes are not Annex-B (the Bitstream error is in the reason).
    public func send(annexB accessUnit: ArraySlice<UInt8>, presentationTime: MediaTime, captureTime: RTPInstant? = nil) throws(RTPError) {
        var nalUnits: [ArraySlice<UInt8>] = []
        do throws(BitstreamError) {
            try AnnexB.forEachNALUnit(in: accessUnit) { nalUnits.append($0) }
        } catch {
            throw .make(.invalidValue, "access unit is not Annex-B: \(error)")
        }
        try send(accessUnit: nalUnits, rtpTimestamp: RTPClock.timestamp(presentationTime, offset: configuration.session.timestampOffset),
                 captureTime: captureTime)
    }

    /// Sends an access unit grouped by Bitstream's `H264.AccessUnitSplitter` (which knows whether it is an IDR).
    public func send(_ accessUnit: H264.AccessUnit, presentationTime: MediaTime, captureTime: RTPInstant? = nil) throws(RTPError) {
        try send(nalUnits: accessUnit.nalUnits, rtpTimestamp: RTPClock.timestamp(presentationTime, offset: configuration.session.timestampOffset),
                 isKeyframe: accessUnit.isIDR, captureTime: captureTime)
    }
}
