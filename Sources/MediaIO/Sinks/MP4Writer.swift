import Bitstream

/// Writes H.264 into an MP4 file through libavformat's `mp4` muxer: AVCC samples (4-byte lengths) with the avcC
/// record as the stream's extradata, timestamps in a 90 kHz time base, keyframes flagged (the `stss` box).
///
/// Input is what an encoder emits: Annex-B access units. Parameter sets come either up front or from the first
/// access unit carrying an SPS and a PPS (x264 without a global header repeats them before every IDR); they go into
/// the avcC record, and their repetitions are dropped from the samples together with access unit delimiters.
/// Parameter sets that differ from the record's stay in-band.
///
/// The file is written as `<path>.partial` and renamed by `close()`; a writer dropped without `close()` removes it.
public final class MP4Writer {
    /// The muxer's time base: RTP's 90 kHz clock, so RTP and MP4 timestamps convert without rounding.
    public static let timescale: Int64 = 90_000

    public let path: String
    public let width: Int
    public let height: Int
    public private(set) var samplesWritten = 0
    public private(set) var keyframesWritten = 0

    private let output: AtomicOutputFile
    private let muxer: FormatOutput
    private var parameterSets: (sps: [UInt8], pps: [UInt8])?
    /// The previous sample, written once the next one tells its duration (the last one reuses the previous duration).
    private var pending: (bytes: [UInt8], pts: Int64, dts: Int64, isKeyframe: Bool)?
    private var lastDuration: Int64 = 0
    /// NAL units of an access unit without slices, written in front of the next one.
    private var carriedParameterSets: [ArraySlice<UInt8>] = []
    private var closed = false
    private let packet: OwnedPacket

    /// - Parameters:
    ///   - sps, pps: the parameter sets as NAL units (header byte first, no start code), or nil to take them from
    ///     the first access unit that carries them.
    public init(path: String, width: Int, height: Int, sps: [UInt8]? = nil, pps: [UInt8]? = nil) throws(MediaIOError) {
        try validateGeometry(width: width, height: height)
        self.path = path
        self.width = width
        self.height = height
        output = AtomicOutputFile(path: path)
        muxer = try FormatOutput(path: output.temporaryPath, formatName: "mp4")
        packet = try OwnedPacket()
        if let sps, let pps { parameterSets = (sps, pps) }
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
        do throws(BitstreamError) {
            let units = try AnnexB.split(ArraySlice(accessUnit))
            guard !units.isEmpty else { throw .invalidValue("no NAL units") }
            if parameterSets == nil,
               let sps = units.first(where: { NALUnitHeader($0[$0.startIndex]).nalUnitType == .sps }),
               let pps = units.first(where: { NALUnitHeader($0[$0.startIndex]).nalUnitType == .pps }) {
                parameterSets = (Array(sps), Array(pps))
            }
            // Parameter sets equal to the avcC record's are redundant in the samples; different ones (an encoder
            // reopened mid-stream) stay in-band, where decoders pick them up, so the file still plays.
            var sampleUnits = carriedParameterSets
            for unit in units {
                switch NALUnitHeader(unit[unit.startIndex]).nalUnitType {
                case .sps where parameterSets?.sps.elementsEqual(unit) == true: break
                case .pps where parameterSets?.pps.elementsEqual(unit) == true: break
                case .accessUnitDelimiter: break
                default: sampleUnits.append(unit)
                }
            }
            // A unit of parameter sets alone is no sample: carry them into the next access unit.
            guard sampleUnits.contains(where: { NALUnitHeader($0[$0.startIndex]).nalUnitType.isVCL }) else {
                carriedParameterSets = sampleUnits
                return
            }
            carriedParameterSets = []
            // AVCC: each NAL unit preceded by its length as a 32-bit big-endian integer (ISO/IEC 14496-15 §5.3.4.2).
            sample = try AVCC.join(sampleUnits, lengthSize: 4)
        } catch {
            throw .bitstream(error, "\(path): access unit \(index) is not Annex-B", frameIndex: index)
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
            throw MediaIOError(code: .invalidState,
                               reason: "\(path): the first access unit has no SPS/PPS and none were given",
                               frameIndex: frameIndex)
        }
        let record: [UInt8]
        do {
            record = try AVCDecoderConfigurationRecord(
                sequenceParameterSets: [parameterSets.sps], pictureParameterSets: [parameterSets.pps]
            ).serialized()
        } catch {
            throw .bitstream(error, "\(path): cannot build the avcC record", frameIndex: frameIndex)
        }
        try muxer.configureH264(width: width, height: height, timeBase: Rational(1, Int(Self.timescale)),
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
