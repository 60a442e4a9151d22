import Bitstream
import LibAVSupport

/// The output half of the state machine: a packet from the encoder becomes an `EncoderOutput` — parsed, its SPS
/// flags made exact, checked against the hard limits, reframed for AVCC, and matched with its frame's context.
extension EncoderEngine {
    mutating func deliver(_ packet: CodecPacket, into outputs: inout [EncoderOutput]) throws(EncoderSessionError) {
        guard let frame = pending.removeValue(forKey: packet.pts) else {
            throw .make(.malformedOutput, "encoder returned a packet for pts \(packet.pts), which was never submitted")
        }
        let timescale = configuration.timescale
        // Bytes are counted at the decode time: the order frames leave in, increasing even with B-frames (where
        // pts is not); without reordering it equals pts.
        let decodeTicks = packet.dts == LibAV.noTimestamp ? packet.pts : packet.dts
        let time = Double(decodeTicks) / Double(timescale)
        var bytes = packet.bytes
        let analysis: FrameAnalyzer.Analysis
        do {
            let units = try FrameAnalyzer.nalUnits(of: bytes, codec: configuration.codec)
            // The SPS flags are made exact in the bytes before anything is read from them, so the parameter sets
            // the analysis copies out (and the avcC built from them) carry the same flags as the stream.
            patchParameterSets(in: &bytes, nalUnits: units)
            analysis = try analyzer.analyze(bytes, nalUnits: units)
        } catch {
            outputs.append(failed(frame, error))
            return
        }

        // Hard limits, after encoding: the real size decides. A refused frame was a reference for what follows.
        // One exception: an IDR bigger than a whole window, with the windows empty. No IDR can meet such a limit
        // (x264 at QP 51 still needs more), and refusing it would refuse every frame after it forever — a stream
        // with no picture. It is delivered and flagged (`FrameStats.exceededDataRateLimit`).
        var exceeded = false
        if rate.enforcesLimits, !rate.fits(bytes: bytes.count, at: time) {
            if analysis.isKeyframe, rate.windowsAreEmpty(at: time) {
                exceeded = true
            } else {
                referenceBroken = true
                outputs.append(dropped(frame, reason: .dataRateLimitAfterEncoding))
                return
            }
        }
        if analysis.isKeyframe {
            referenceBroken = false
            keyFrameOwed = false
        }

        var parameterSets: EncodedFrame.ParameterSets?
        var nalUnits = analysis.nalUnits
        switch configuration.outputFormat {
        case .annexB:
            if !analysis.videoParameterSets.isEmpty || !analysis.sequenceParameterSets.isEmpty
                || !analysis.pictureParameterSets.isEmpty
            {
                let sets = EncodedFrame.ParameterSets(
                    videoParameterSets: analysis.videoParameterSets,
                    sequenceParameterSets: analysis.sequenceParameterSets,
                    pictureParameterSets: analysis.pictureParameterSets, avcC: nil)
                if sets != lastParameterSets { parameterSets = sets }
            }
        case .avcc:
            if let sets = outOfBandParameterSets {
                if sets != lastParameterSets { parameterSets = sets }
                outOfBandParameterSets = nil
            }
            do {
                (bytes, nalUnits) = try Self.lengthPrefixed(bytes, nalUnits: analysis.nalUnits)
            } catch {
                outputs.append(failed(frame, error))
                return
            }
        }
        if let parameterSets { lastParameterSets = parameterSets }

        rate.record(bytes: bytes.count, isIDR: analysis.isKeyframe, at: time)
        var stats = stats(for: frame)
        stats.bytes = bytes.count
        stats.qp = analysis.qp
        stats.exceededDataRateLimit = exceeded
        if let budget = frame.frameBudget, bytes.count > budget { stats.exceededFrameBudget = true }
        let encoded = EncodedFrame(
            accessUnit: CodedAccessUnit(
                codec: configuration.codec, bytes: bytes, framing: configuration.outputFormat.framing, nalUnits: nalUnits,
                isKeyframe: analysis.isKeyframe, presentationTime: frame.presentationTime,
                decodeTime: MediaTime(value: decodeTicks, timescale: timescale)),
            parameterSets: parameterSets)
        outputs.append(
            EncoderOutput(
                status: .success(()), infoFlags: frame.call == call ? [] : .asynchronous, frame: encoded,
                presentationTime: frame.presentationTime, context: frame.context, stats: stats))
    }

    /// H.264 only: the SPS constraint flags made exactly what the requested profile promises (`ParameterSetPatch`).
    /// HEVC output is left as libx265 wrote it (its profile_tier_level is what it claims).
    func patchParameterSets(in bytes: inout [UInt8], nalUnits: [EncodedFrame.NALUnitRange]) {
        guard configuration.codec == .h264 else { return }
        ParameterSetPatch.apply(to: &bytes, nalUnits: nalUnits, profile: configuration.profileLevel.profile)
    }

    /// Every NAL unit with a 4-byte big-endian length in front instead of a start code (ISO/IEC 14496-15 §5.3.4.2,
    /// lengthSize 4), written by Bitstream's `AVCC.join`; the NAL unit ranges the session already has move along
    /// (each unit's bytes are unchanged, only what precedes them differs).
    static func lengthPrefixed(
        _ bytes: [UInt8], nalUnits: [EncodedFrame.NALUnitRange]
    ) throws(EncoderSessionError) -> (bytes: [UInt8], nalUnits: [EncodedFrame.NALUnitRange]) {
        let lengthSize = 4
        let joined: [UInt8]
        do {
            joined = try AVCC.join(nalUnits.lazy.map { bytes[$0.range] }, lengthSize: lengthSize)
        } catch {
            throw .make(.malformedOutput, "encoder output cannot be length-prefixed: \(error)")
        }
        var ranges: [EncodedFrame.NALUnitRange] = []
        ranges.reserveCapacity(nalUnits.count)
        var offset = 0
        for unit in nalUnits {
            let start = offset + lengthSize
            offset = start + unit.range.count
            ranges.append(.init(type: unit.type, range: start..<offset))
        }
        return (joined, ranges)
    }

    func stats(for frame: Pending) -> FrameStats {
        var stats = FrameStats()
        stats.targetBitRate = frame.targetBitRate
        stats.encoderMaxBitRate = frame.maxBitRate
        stats.reopenedEncoder = frame.reopened
        stats.frameBudgetBytes = frame.frameBudget
        return stats
    }

    func dropped(_ frame: Pending, reason: DropReason) -> EncoderOutput {
        var stats = stats(for: frame)
        stats.dropReason = reason
        var flags: InfoFlags = .frameDropped
        if frame.call != call { flags.insert(.asynchronous) }
        return EncoderOutput(
            status: .success(()), infoFlags: flags, frame: nil, presentationTime: frame.presentationTime,
            context: frame.context, stats: stats)
    }

    func failed(_ frame: Pending, _ error: EncoderSessionError) -> EncoderOutput {
        var output = dropped(frame, reason: .encoderDroppedFrame)
        output.status = .failure(error)
        return output
    }
}
