#if canImport(Glibc)
import Glibc
#endif

/// The "write to a temporary name, rename when complete" rule shared by the file sinks: a reader never sees a
/// partial file under the final name, and a writer that is dropped without `commit()` leaves nothing behind.
struct AtomicOutputFile {
    /// Appended to the final path while the file is being written.
    static let temporarySuffix = ".partial"

    let path: String
    var temporaryPath: String { path + Self.temporarySuffix }

    /// Moves the finished temporary file to its final name (atomic on one file system).
    func commit() throws(MediaIOError) {
        guard rename(temporaryPath, path) == 0 else {
            let code = errno
            discard()
            throw .io("cannot rename \(temporaryPath) to \(path)", errno: code)
        }
    }

    /// Removes the temporary file, if any.
    func discard() {
        unlink(temporaryPath)
    }
}
