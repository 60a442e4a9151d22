#if canImport(Glibc)
import Glibc
#endif

/// The I/O edge of the native MP4 path: finds the `moov` box among the file's top-level boxes (reading 16-byte
/// headers, skipping `mdat` by its size), reads it, indexes the H.264 or H.265 track (`MP4TrackIndex`, pure) and reads
/// samples with pread(2) straight into the caller's array.
///
/// Why not libavformat: opening it maps ~134 libraries (TLS, SSH, SRT, codecs…) — ~25 ms of CPU, most of what
/// `rtenc annexb` of a 60 s file cost — to read a table and copy bytes. Files it cannot index (fragmented, edit
/// lists that move time, several video tracks, other codecs, damage) make `open` return nil and take the
/// libavformat path as before.
final class MP4File {
    /// A movie box larger than this (a table of millions of samples) is left to libavformat.
    static let maxMovieBoxSize = 64 << 20

    let path: String
    let index: MP4TrackIndex
    private let descriptor: Int32

    /// nil when the file cannot be opened or indexed natively (the caller falls back to libavformat, which gives
    /// the error, if any, in its own words).
    static func open(path: String) -> MP4File? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
              let movie = readMovieBox(descriptor, fileSize: Int64(status.st_size)),
              let index = MP4TrackIndex(movie: movie[...], fileSize: Int64(status.st_size))
        else {
            close(descriptor)
            return nil
        }
        return MP4File(path: path, descriptor: descriptor, index: index)
    }

    private init(path: String, descriptor: Int32, index: MP4TrackIndex) {
        self.path = path
        self.descriptor = descriptor
        self.index = index
    }

    deinit {
        close(descriptor)
    }

    /// The bytes of sample `number` (its offset and size come from the index, which checked them against the
    /// file's size when it was opened).
    func readSample(_ number: Int) throws(MediaIOError) -> [UInt8] {
        let sample = index.samples[number]
        var failure: MediaIOError?
        let bytes = [UInt8](unsafeUninitializedCapacity: sample.size) { buffer, initialized in
            do throws(MediaIOError) {
                try Self.readFully(descriptor, into: UnsafeMutableRawBufferPointer(buffer), at: sample.offset, path: path)
            } catch {
                failure = error
            }
            initialized = sample.size  // UInt8 needs no initialisation; on failure the array is thrown away
        }
        if let failure { throw failure }
        return bytes
    }

    /// Reads `buffer.count` bytes at `offset`, retrying short reads and EINTR.
    private static func readFully(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String
    ) throws(MediaIOError) {
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                throw .io("cannot read \(path)", errno: errno)
            }
            if count == 0 {
                throw .make(.truncated, "\(path) ends inside a sample at byte \(offset + Int64(done)) (it was shortened while read?)")
            }
            done += count
        }
    }

    /// The payload of the first top-level `moov` box, or nil (none, too large, or the boxes do not tile the file).
    private static func readMovieBox(_ descriptor: Int32, fileSize: Int64) -> [UInt8]? {
        var position: Int64 = 0
        var header = [UInt8](repeating: 0, count: 16)
        while position < fileSize {
            let available = Int(min(16, fileSize - position))
            let read = header.withUnsafeMutableBytes { buffer in
                (try? readFully(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<available]),
                                at: position, path: "")) != nil
            }
            guard read, let (type, headerSize, declared) = MP4Box.header(header[0..<available]) else { return nil }
            let size = declared.map { Int64(clamping: $0) } ?? (fileSize - position)
            guard size >= Int64(headerSize), size <= fileSize - position else { return nil }
            if type == MP4Box.type("moov") {
                let payloadSize = size - Int64(headerSize)
                guard payloadSize <= Int64(maxMovieBoxSize) else { return nil }
                var movie = [UInt8](repeating: 0, count: Int(payloadSize))
                let complete = movie.withUnsafeMutableBytes { buffer in
                    (try? readFully(descriptor, into: buffer, at: position + Int64(headerSize), path: "")) != nil
                }
                return complete ? movie : nil
            }
            position += size
        }
        return nil
    }
}
