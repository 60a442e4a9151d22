/// Where every sample of an MP4's H.264 or H.265 video track lies and when it plays, read from the movie box's sample
/// tables (ISO/IEC 14496-12 §8.6–8.7) without libavformat. Pure: it gets the `moov` payload and the file's size.
///
/// It reads the plain case only — one video track, an `avc1`/`avc3` sample entry with its avcC record or an
/// `hvc1`/`hev1` one with its hvcC record (ISO/IEC 14496-15 §5.4, §8.4), one sample description, no movie fragments, no edit list or one that starts at media time 0 and covers the whole track,
/// no negative composition offsets — and says `nil` for anything else, so `MP4SampleReader` hands those files to
/// libavformat as before (its rules for edit lists and odd tables are many; matching them is not the point). For
/// the plain case it gives what libavformat gives: dts from `stts` from 0, pts = dts + `ctts`, sync samples from
/// `stss` (all when absent), and avg_frame_rate as timescale × samples / duration.
struct MP4TrackIndex {
    struct Sample: Equatable {
        /// Byte offset in the file.
        var offset: Int64
        var size: Int
        /// Decode time in ticks of `timescale`.
        var dts: Int64
        /// pts − dts in ticks (`ctts`), never negative here.
        var compositionOffset: Int64
        var isSync: Bool
    }

    /// Samples beyond this (38.8 hours at 30 fps) are left to libavformat: the index holds 40 bytes a sample.
    static let maxSamples = 1 << 22

    /// The media timescale (`mdhd`): ticks per second.
    let timescale: Int64
    /// From the visual sample entry.
    let width: Int
    let height: Int
    /// H.264 for avc1/avc3, H.265 for hvc1/hev1.
    let codec: VideoCodec
    /// The decoder configuration record as stored: the avcC or hvcC box's payload.
    let decoderConfigurationRecord: [UInt8]
    let samples: [Sample]
    /// avg_frame_rate as libavformat's mov demuxer derives it (timescale × sample count / total duration); nil when
    /// the track has no duration.
    let frameRate: Rational?

    /// - Parameters:
    ///   - movie: the payload of the `moov` box.
    ///   - fileSize: every sample must lie inside the file.
    init?(movie: ArraySlice<UInt8>, fileSize: Int64) {
        guard let boxes = MP4Box.children(of: movie),
              !boxes.contains(where: { $0.type == MP4Box.type("mvex") }),  // fragmented: samples live in moofs
              let movieHeader = boxes.first(where: { $0.type == MP4Box.type("mvhd") }),
              let movieTimescale = Self.movieTimescale(movieHeader)
        else { return nil }
        let videoTracks = boxes.filter { $0.type == MP4Box.type("trak") }.filter { Self.handler(of: $0) == "vide" }
        guard videoTracks.count == 1, let track = videoTracks.first,
              let media = track.child("mdia"), let mediaHeader = media.child("mdhd"),
              let timescale = Self.mediaTimescale(mediaHeader),
              let table = media.child("minf")?.child("stbl"),
              let entry = Self.sampleEntry(table), let record = entry.record
        else { return nil }
        guard let sizes = Self.sampleSizes(table), !sizes.isEmpty, sizes.count <= Self.maxSamples,
              let durations = Self.expand(table.child("stts"), count: sizes.count, signed: false),
              let offsets = Self.chunkOffsets(table),
              let positions = Self.samplePositions(table.child("stsc"), chunkOffsets: offsets, sizes: sizes),
              let sync = Self.syncSamples(table.child("stss"), count: sizes.count)
        else { return nil }
        var compositionOffsets: [Int64]?
        if let ctts = table.child("ctts") {
            guard let expanded = Self.expand(ctts, count: sizes.count, signed: true),
                  expanded.allSatisfy({ $0 >= 0 }) else { return nil }
            compositionOffsets = expanded
        }
        let trackDuration = durations.reduce(0, +)
        guard Self.editListIsPlain(track.child("edts")?.child("elst"), movieTimescale: movieTimescale,
                                   mediaTimescale: timescale, mediaDuration: trackDuration)
        else { return nil }

        var samples: [Sample] = []
        samples.reserveCapacity(sizes.count)
        var dts: Int64 = 0
        for index in sizes.indices {
            let offset = positions[index]
            // Every sample inside the file; a table pointing past its end is damage libavformat reports better.
            guard offset >= 0, offset <= fileSize - Int64(sizes[index]) else { return nil }
            samples.append(Sample(offset: offset, size: sizes[index], dts: dts,
                                  compositionOffset: compositionOffsets?[index] ?? 0, isSync: sync?[index] ?? true))
            dts += durations[index]
        }
        self.timescale = timescale
        width = entry.width
        height = entry.height
        codec = entry.codec
        decoderConfigurationRecord = Array(record)
        self.samples = samples
        frameRate = trackDuration > 0 ? Self.reduced(Int(timescale) * samples.count, Int(trackDuration)) : nil
    }

    // MARK: Boxes

    /// mvhd's timescale (§8.2.2): version 0 has 32-bit times, version 1 64-bit ones before it.
    private static func movieTimescale(_ box: MP4Box) -> Int64? {
        var reader = MP4ByteReader(box.payload)
        guard let (version, _) = reader.readVersionAndFlags(), reader.skip(version == 1 ? 16 : 8),
              let timescale = reader.readUInt32(), timescale > 0 else { return nil }
        return Int64(timescale)
    }

    /// mdhd's timescale (§8.4.2), laid out as mvhd's.
    private static func mediaTimescale(_ box: MP4Box) -> Int64? { movieTimescale(box) }

    /// The track's handler type (§8.4.3: pre_defined, then handler_type), e.g. "vide".
    private static func handler(of track: MP4Box) -> String? {
        guard let box = track.child("mdia")?.child("hdlr") else { return nil }
        var reader = MP4ByteReader(box.payload)
        guard reader.readVersionAndFlags() != nil, reader.skip(4), let type = reader.readUInt32() else { return nil }
        return String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: type >> $0) }, as: UTF8.self)
    }

    /// The sample entry types read here and the record box each carries: avc1/avc3 with avcC (ISO/IEC 14496-15
    /// §5.4.2.1), hvc1/hev1 with hvcC (§8.4.1.1). The second of each pair may also carry parameter sets in the samples;
    /// `AVCC.toAnnexB` puts the record's in front of a random-access slice only where the sample lacks them.
    private static let sampleEntryTypes: [(entry: UInt32, record: UInt32, codec: VideoCodec)] = [
        (MP4Box.type("avc1"), MP4Box.type("avcC"), .h264), (MP4Box.type("avc3"), MP4Box.type("avcC"), .h264),
        (MP4Box.type("hvc1"), MP4Box.type("hvcC"), .hevc), (MP4Box.type("hev1"), MP4Box.type("hvcC"), .hevc),
    ]

    /// The one sample entry of stsd (§8.5.2) if it is avc1/avc3/hvc1/hev1: the codec, the VisualSampleEntry's size
    /// and its record child (avcC or hvcC).
    static func sampleEntry(_ table: MP4Box)
        -> (codec: VideoCodec, width: Int, height: Int, record: ArraySlice<UInt8>?)?
    {
        guard let stsd = table.child("stsd") else { return nil }
        var reader = MP4ByteReader(stsd.payload)
        guard reader.readVersionAndFlags() != nil, reader.readUInt32() == 1,
              let entries = MP4Box.children(of: reader.bytes), entries.count == 1, let entry = entries.first,
              let kind = sampleEntryTypes.first(where: { $0.entry == entry.type })
        else { return nil }
        // SampleEntry: reserved(6) data_reference_index(2); VisualSampleEntry: pre_defined(2) reserved(2)
        // pre_defined(12), width(2), height(2), resolutions(8), reserved(4), frame_count(2), compressorname(32),
        // depth(2), pre_defined(2): 78 bytes, then boxes (avcC or hvcC, pasp, btrt, …).
        var visual = MP4ByteReader(entry.payload)
        guard visual.skip(24), let width = visual.readUInt16(), let height = visual.readUInt16(), visual.skip(50),
              let children = MP4Box.children(of: visual.bytes)
        else { return nil }
        let record = children.first { $0.type == kind.record }?.payload
        return (kind.codec, Int(width), Int(height), record)
    }

    /// stsz (§8.7.3.2): every sample's size. stz2 (compact sizes) is left to libavformat.
    private static func sampleSizes(_ table: MP4Box) -> [Int]? {
        guard let stsz = table.child("stsz") else { return nil }
        var reader = MP4ByteReader(stsz.payload)
        guard reader.readVersionAndFlags() != nil, let constant = reader.readUInt32(), let count = reader.readUInt32(),
              count <= maxSamples else { return nil }
        if constant != 0 { return [Int](repeating: Int(constant), count: Int(count)) }
        guard reader.remaining / 4 >= Int(count) else { return nil }
        var sizes: [Int] = []
        sizes.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let size = reader.readUInt32() else { return nil }
            sizes.append(Int(size))
        }
        return sizes
    }

    /// A run-length table of (sample_count, value) pairs — stts (§8.6.1.2) durations or ctts (§8.6.1.3) offsets —
    /// expanded to one value per sample; nil unless it covers exactly `count` samples. ctts values are read signed
    /// (version 1 says so; libavformat reads version 0 the same way).
    private static func expand(_ box: MP4Box?, count: Int, signed: Bool) -> [Int64]? {
        guard let box else { return nil }
        var reader = MP4ByteReader(box.payload)
        guard reader.readVersionAndFlags() != nil, let entries = reader.readUInt32(),
              reader.remaining / 8 >= Int(entries) else { return nil }
        var values: [Int64] = []
        values.reserveCapacity(count)
        for _ in 0..<entries {
            guard let run = reader.readUInt32(), let raw = reader.readUInt32(), Int(run) <= count - values.count
            else { return nil }
            let value = signed ? Int64(Int32(bitPattern: raw)) : Int64(raw)
            values.append(contentsOf: repeatElement(value, count: Int(run)))
        }
        return values.count == count ? values : nil
    }

    /// stco (§8.7.5, 32-bit) or co64 (64-bit) chunk offsets.
    private static func chunkOffsets(_ table: MP4Box) -> [Int64]? {
        let wide: Bool
        let box: MP4Box
        if let stco = table.child("stco") { (box, wide) = (stco, false) }
        else if let co64 = table.child("co64") { (box, wide) = (co64, true) }
        else { return nil }
        var reader = MP4ByteReader(box.payload)
        guard reader.readVersionAndFlags() != nil, let count = reader.readUInt32(),
              reader.remaining / (wide ? 8 : 4) >= Int(count) else { return nil }
        var offsets: [Int64] = []
        offsets.reserveCapacity(Int(count))
        for _ in 0..<count {
            if wide {
                guard let offset = reader.readUInt64(), offset <= UInt64(Int64.max) else { return nil }
                offsets.append(Int64(offset))
            } else {
                guard let offset = reader.readUInt32() else { return nil }
                offsets.append(Int64(offset))
            }
        }
        return offsets
    }

    /// Each sample's file offset from stsc (§8.7.4: runs of chunks with the same samples per chunk) over the chunk
    /// offsets: a chunk's samples lie back to back from its offset. nil unless the runs start at chunk 1, grow, use
    /// sample description 1 and place exactly `sizes.count` samples in the chunks there are.
    private static func samplePositions(_ box: MP4Box?, chunkOffsets: [Int64], sizes: [Int]) -> [Int64]? {
        guard let box else { return nil }
        var reader = MP4ByteReader(box.payload)
        guard reader.readVersionAndFlags() != nil, let count = reader.readUInt32(),
              reader.remaining / 12 >= Int(count), count > 0 else { return nil }
        var runs: [(firstChunk: Int, samplesPerChunk: Int)] = []
        for _ in 0..<count {
            guard let first = reader.readUInt32(), let perChunk = reader.readUInt32(),
                  let description = reader.readUInt32(), description == 1, perChunk > 0,
                  first > (runs.last.map { UInt32($0.firstChunk) } ?? 0)
            else { return nil }
            runs.append((Int(first), Int(perChunk)))
        }
        guard runs[0].firstChunk == 1 else { return nil }
        var positions: [Int64] = []
        positions.reserveCapacity(sizes.count)
        for (run, current) in runs.enumerated() {
            let end = run + 1 < runs.count ? runs[run + 1].firstChunk : chunkOffsets.count + 1
            guard end <= chunkOffsets.count + 1 else { return nil }
            for chunk in current.firstChunk..<max(current.firstChunk, end) {
                var offset = chunkOffsets[chunk - 1]
                for _ in 0..<current.samplesPerChunk {
                    guard positions.count < sizes.count else { return nil }
                    positions.append(offset)
                    offset += Int64(sizes[positions.count - 1])
                }
            }
        }
        return positions.count == sizes.count ? positions : nil
    }

    /// stss (§8.6.2): 1-based numbers of the sync samples, increasing. `.some(nil)` when there is no stss: every
    /// sample is a sync sample then.
    private static func syncSamples(_ box: MP4Box?, count: Int) -> [Bool]?? {
        guard let box else { return .some(nil) }
        var reader = MP4ByteReader(box.payload)
        guard reader.readVersionAndFlags() != nil, let entries = reader.readUInt32(),
              reader.remaining / 4 >= Int(entries) else { return nil }
        var sync = [Bool](repeating: false, count: count)
        for _ in 0..<entries {
            guard let number = reader.readUInt32(), number >= 1, Int(number) <= count else { return nil }
            sync[Int(number) - 1] = true
        }
        return .some(sync)
    }

    /// True for no edit list, or one edit (§8.6.6) that starts the media at time 0 at normal rate and lasts at least
    /// as long as the media (duration 0 counts as "all of it"): the edit then changes no timestamp and drops no
    /// sample, as libavformat applies it.
    private static func editListIsPlain(
        _ box: MP4Box?, movieTimescale: Int64, mediaTimescale: Int64, mediaDuration: Int64
    ) -> Bool {
        guard let box else { return true }
        var reader = MP4ByteReader(box.payload)
        guard let (version, _) = reader.readVersionAndFlags(), reader.readUInt32() == 1 else { return false }
        let duration: UInt64?, mediaTime: Int64?
        if version == 1 {
            duration = reader.readUInt64()
            mediaTime = reader.readUInt64().map { Int64(bitPattern: $0) }
        } else {
            duration = reader.readUInt32().map(UInt64.init)
            mediaTime = reader.readUInt32().map { Int64(Int32(bitPattern: $0)) }
        }
        guard let duration, mediaTime == 0, reader.readUInt32() == 0x0001_0000 else { return false }
        if duration == 0 { return true }
        // duration / movieTimescale ≥ mediaDuration / mediaTimescale, in exact integers; a product too large for 64
        // bits is left to libavformat.
        guard duration <= UInt64(Int64.max) else { return false }
        let edit = Int64(duration).multipliedReportingOverflow(by: mediaTimescale)
        let media = mediaDuration.multipliedReportingOverflow(by: movieTimescale)
        return !edit.overflow && !media.overflow && edit.partialValue >= media.partialValue
    }

    /// numerator/denominator in lowest terms (both positive).
    private static func reduced(_ numerator: Int, _ denominator: Int) -> Rational {
        var (a, b) = (numerator, denominator)
        while b != 0 { (a, b) = (b, a % b) }
        return Rational(numerator / a, denominator / a)
    }
}
