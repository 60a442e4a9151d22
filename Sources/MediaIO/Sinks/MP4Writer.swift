import Bitstream

/// Writes H.264 or H.265 into an MP4 file through libavformat's `mp4` muxer: length-prefixed samples (4-byte lengths)
/// with the decoder configuration record as the stream's extradata — an `avc1` sample entry with avcC, or an `hvc1`
/// one with hvcC (ISO/IEC 14496-15 §8.4.1.1, the entry Apple's players and browsers require; array_completeness
/// set) —, timestamps in a 90 kHz time base, keyframes flagged (the `stss` box).
///
/// Input is what an encoder emits: Annex-B access units. Parameter sets come either up front or from the first
/// access unit carrying all of them (SPS and PPS; VPS, SPS and PPS — x264 and x265 without a global header repeat them
/// before every IDR); they go into the record, and their repetitions are dropped from the samples together with
/// access unit delimiters. Parameter sets that differ from the record's (an encoder reopened mid-stream) stay
/// in-band, where decoders (FFmpeg's among them) pick them up; for H.265 that bends hvc1's rule that parameter sets
/// live only in the record, which is the price of not losing them.
///
/// The file is written as `<path>.partial` and renamed by `close()`; a writer dropped without `close()` removes it.
public final class MP4Writer {
    /// The muxer's time base: RTP's 90 kHz clock, so RTP and MP4 timestamps convert without rounding.
    public static let timescale: Int64 = 90_000

    public let path: String
    public let codec: VideoCodec
    public let width: Int
    public let height: Int
    public private(set) var samplesWritten = 0
    public private(set) var keyframesWritten = 0

    private let output: AtomicOutputFile
    private let muxer: FormatOutput
    /// The record's parameter sets, one of each of `codec.parameterSetNALUnitTypes`, in that order.
    private var parameterSets: [[UInt8]]?
    /// The previous sample, written once the next one tells its duration (the last one reuses the previous duration).
    private var pending: (bytes: [UInt8], pts: Int64, dts: Int64, isKeyframe: Bool)?
    private var lastDuration: Int64 = 0
    /// NAL units of an access unit without slices, written in front of the next one.
    private var carriedParameterSets: [ArraySlice<UInt8>] = []
    private var closed = false
    private let packet: OwnedPacket

    /// An H.264 writer.
    /// - Parameters:
    ///   - sps, pps: the parameter sets as NAL units (header byte first, no start code), or nil to take them from
    ///     the first access unit that carries them.
    public convenience init(path: String, width: Int, height: Int, sps: [UInt8]? = nil, pps: [UInt8]? = nil)
        throws(MediaIOError)
    {
        let given = sps.flatMap { sps in pps.map { [sps, $0] } }
        try self.init(path: path, codec: .h264, width: width, height: height, parameterSets: given)
    }

    /// - Parameters:
    ///   - parameterSets: one NAL unit (header first, no start code) of each of `codec.parameterSetNALUnitTypes`, in
    ///     that order (H.264: SPS, PPS; H.265: VPS, SPS, PPS), or nil to take them from the first access unit that
    ///     carries them all.
    /// - Throws: `.invalidArgument` for `parameterSets` that are not one of each type in that order.
    public init(path: String, codec: VideoCodec, width: Int, height: Int, parameterSets: [[UInt8]]? = nil)
        throws(MediaIOError)
    {
        try validateGeometry(width: width, height: height)
        if let parameterSets {
            let types = parameterSets.map { $0.first.map(codec.nalUnitType(firstByte:)) }
            guard types == codec.parameterSetNALUnitTypes.map(Optional.some) else {
                throw .make(.invalidArgument, "\(path): the \(codec) parameter sets given are of nal_unit_types "
                    + "\(types.map { $0.map(String.init) ?? "empty" }), not \(codec.parameterSetNALUnitTypes)")
            }
        }
        self.path = path
        self.codec = codec
        self.width = width
        self.height = height
        self.parameterSets = parameterSets
        output = AtomicOutputFile(path: path)
        muxer = try FormatOutput(path: output.temporaryPath, formatName: "mp4")
        packet = try OwnedPacket()
    }

    deinit {
        if !closed { output.discard() }
    }

    /// Appends one access unit.
    /// - Parameters:
    ///   - pts: presentation time; `dts` defaults to it (no B-frames, as in real-time encoding).
    public func write(accessUnit: some Collection<UInt8>, pts: MediaTime, dts: MediaTime? = nil, isKeyframe: Bool)
        throws(MediaIOError)
    {
        guard !closed else { throw .make(.invalidState, "\(path): write after close") }
        let index = samplesWritten + (pending == nil ? 0 : 1)
        let sample: [UInt8]
        let types = codec.parameterSetNALUnitTypes
        let type = { [codec] (unit: ArraySlice<UInt8>) in codec.nalUnitType(firstByte: unit[unit.startIndex]) }
        do throws(BitstreamError) {
            let units = try AnnexB.split(ArraySlice(accessUnit))
            guard !units.isEmpty else { throw .make(.invalidValue, "no NAL units") }
            if parameterSets == nil {
                let found = types.compactMap { wanted in units.first { type($0) == wanted }.map(Array.init) }
                if found.count == types.count { parameterSets = found }
            }
            // Parameter sets equal to the record's are redundant in the samples; different ones (an encoder
            // reopened mid-stream) stay in-band, where decoders pick them up, so the file still plays.
            var sampleUnits = carriedParameterSets
            for unit in units {
                let unitType = type(unit)
                if let slot = types.firstIndex(of: unitType), parameterSets?[slot].elementsEqual(unit) == true { continue }
                if unitType == codec.accessUnitDelimiterNALUnitType { continue }
                sampleUnits.append(unit)
            }
            // A unit of parameter sets alone is no sample: carry them into the next access unit.
            guard sampleUnits.contains(where: { codec.isVCL(nalUnitType: type($0)) }) else {
                carriedParameterSets = sampleUnits
                return
            }
            carriedParameterSets = []
            // Each NAL unit preceded by its length as a 32-bit big-endian integer (ISO/IEC 14496-15 §5.3.4.2, §8.3.4.2).
            sample = try AVCC.join(sampleUnits, lengthSize: 4)
        } catch {
            throw .bitstream(error, "\(path): access unit \(index) is not Annex-B \(codec)", frameIndex: index)
        }
        if !muxer.headerWritten { try start(frameIndex: index) }
        let ptsTicks = pts.converted(to: Self.timescale).value
        let dtsTicks = (dts ?? pts).converted(to: Self.timescale).value
        if let previous = pending {
            guard dtsTicks > previous.dts else {
                throw MediaIOError(code: .invalidArgument,
                                   reason: "\(path): decode time \(dts ?? pts) does not increase", frameIndex: index)
            }
            lastDuration = dtsTicks - previous.dts
            try writeSample(previous, duration: lastDuration)
        }
        pending = (sample, ptsTicks, dtsTicks, isKeyframe)
    }

    /// Writes the last sample and the trailer, then gives the file its final name.
    public func close() throws(MediaIOError) {
        guard !closed else { throw .make(.invalidState, "\(path): closed twice") }
        closed = true
        do throws(MediaIOError) {
            guard let last = pending else {
                throw MediaIOError.make(.invalidState, "\(path): no video samples were written")
            }
            try writeSample(last, duration: lastDuration)
            pending = nil
            try muxer.finish()
        } catch {
            output.discard()
            throw error
        }
        try output.commit()
    }

    private func start(frameIndex: Int) throws(MediaIOError) {
        guard let parameterSets else {
            let names = codec == .hevc ? "VPS/SPS/PPS" : "SPS/PPS"
            throw MediaIOError(code: .invalidState,
                               reason: "\(path): the first access unit has no \(names) and none were given",
                               frameIndex: frameIndex)
        }
        let record: [UInt8]
        do {
            record = switch codec {
            case .h264:
                try AVCDecoderConfigurationRecord(
                    sequenceParameterSets: [parameterSets[0]], pictureParameterSets: [parameterSets[1]]
                ).serialized()
            case .hevc:
                // The fields ffmpeg's own muxer writes for the same parameter sets (ff_isom_write_hvcc).
                try HEVC.DecoderConfigurationRecord(nalUnits: parameterSets, arrayCompleteness: true).serialized()
            }
        } catch {
            throw .bitstream(error, "\(path): cannot build the \(codec.decoderConfigurationRecordName) record",
                             frameIndex: frameIndex)
        }
        try muxer.configureVideo(codec: codec, width: width, height: height, timeBase: Rational(1, Int(Self.timescale)),
                                 extradata: record)
        try muxer.writeHeader()
    }

    private func writeSample(_ sample: (bytes: [UInt8], pts: Int64, dts: Int64, isKeyframe: Bool), duration: Int64)
        throws(MediaIOError)
    {
        do {
            try muxer.writeSample(sample.bytes, pts: sample.pts, dts: sample.dts, duration: duration,
                                  timeBase: Rational(1, Int(Self.timescale)), isKeyframe: sample.isKeyframe, using: packet)
        } catch {
            throw error.at(frame: samplesWritten)
        }
        samplesWritten += 1
        if sample.isKeyframe { keyframesWritten += 1 }
    }
}
