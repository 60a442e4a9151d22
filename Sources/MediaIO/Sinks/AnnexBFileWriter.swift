#if canImport(Glibc)
import Glibc
#endif

/// Writes an H.264 Annex-B elementary stream (`.h264`): access units as the encoder emitted them, concatenated.
///
/// The file is written as `<path>.partial` and renamed to `path` by `close()`; a writer dropped without `close()`
/// deletes its partial file. The path `-` writes to standard output instead (no rename).
public final class AnnexBFileWriter {
    public let path: String
    public private(set) var bytesWritten = 0
    public private(set) var accessUnitsWritten = 0

    private var descriptor: Int32
    private let output: AtomicOutputFile?

    public init(path: String) throws(MediaIOError) {
        self.path = path
        if path == "-" {
            descriptor = STDOUT_FILENO
            output = nil
        } else {
            let output = AtomicOutputFile(path: path)
            let fd = open(output.temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw .io("cannot create \(output.temporaryPath)", errno: errno) }
            descriptor = fd
            self.output = output
        }
    }

    deinit {
        if descriptor >= 0, let output {
            Glibc.close(descriptor)
            output.discard()
        }
    }

    /// Appends one access unit; it must start with a start code (`00 00 01` or `00 00 00 01`), so AVCC data
    /// written here by mistake is caught instead of producing an unplayable file.
    public func write(_ accessUnit: some Collection<UInt8>) throws(MediaIOError) {
        // Arrays and slices are written from their own storage; only other collections are copied first.
        let written = accessUnit.withContiguousStorageIfAvailable { bytes in
            Result { () throws(MediaIOError) in try write(UnsafeRawBufferPointer(bytes)) }
        } ?? Array(accessUnit).withUnsafeBytes { bytes in
            Result { () throws(MediaIOError) in try write(bytes) }
        }
        try written.get()
    }

    private func write(_ raw: UnsafeRawBufferPointer) throws(MediaIOError) {
        guard descriptor >= 0 else { throw .make(.invalidState, "\(path): write after close") }
        guard raw.starts(with: [0, 0, 1]) || raw.starts(with: [0, 0, 0, 1]) else {
            throw .make(.invalidFormat, "access unit \(accessUnitsWritten) does not start with an Annex-B start code")
        }
        var offset = 0
        while offset < raw.count {
            let count = Glibc.write(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw MediaIOError.io("cannot write \(path)", errno: errno).at(frame: accessUnitsWritten)
            }
            offset += count
        }
        bytesWritten += raw.count
        accessUnitsWritten += 1
    }

    /// Finishes the file and gives it its final name. Calling it twice is an error.
    public func close() throws(MediaIOError) {
        guard descriptor >= 0 else { throw .make(.invalidState, "\(path): closed twice") }
        let fd = descriptor
        descriptor = -1
        guard let output else { return } // stdout stays open
        guard Glibc.close(fd) == 0 else {
            let code = errno
            output.discard()
            throw .io("cannot finish \(output.temporaryPath)", errno: code)
        }
        try output.commit()
    }
}
