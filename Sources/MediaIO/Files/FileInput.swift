#if canImport(Glibc)
import Glibc
#endif

/// A readable file descriptor with a small read-ahead buffer: lines for headers, exact counts for payloads.
///
/// Owns the descriptor when opened from a path (closed in `deinit`); borrows it when given one (stdin).
/// Short reads and EINTR are retried here so callers see only "got all", "clean end" or a typed error.
final class FileInput {
    /// Bytes read ahead per `read(2)`; large payloads bypass it and go straight into the caller's memory.
    static let readAheadSize = 64 * 1024

    let name: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    /// Storage reused by `readLine`, so reading a `FRAME` line per frame allocates nothing in steady state.
    private var line: [UInt8] = []

    init(path: String) throws(MediaIOError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io("cannot open \(path)", errno: errno) }
        self.name = path
        self.descriptor = fd
        self.ownsDescriptor = true
        self.buffer = [UInt8](repeating: 0, count: Self.readAheadSize)
    }

    init(borrowing descriptor: Int32, name: String) {
        self.name = name
        self.descriptor = descriptor
        self.ownsDescriptor = false
        self.buffer = [UInt8](repeating: 0, count: Self.readAheadSize)
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Reads up to and including the next `\n`, returning the bytes without it. The result shares storage with
    /// the next call's: drop it before calling again to keep reads allocation-free.
    /// Returns nil at a clean end of input (no bytes at all); throws `.truncated` when the input ends inside the
    /// line and `.limitExceeded` when no `\n` comes within `maximumLength` bytes.
    func readLine(maximumLength: Int, what: String) throws(MediaIOError) -> [UInt8]? {
        line.removeAll(keepingCapacity: true)
        while true {
            if start == end {
                guard try fill() else {
                    if line.isEmpty { return nil }
                    throw .make(.truncated, "\(name): input ends inside the \(what) after \(line.count) bytes")
                }
            }
            if let newline = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n")) {
                line += buffer[start..<newline]
                start = newline + 1
                guard line.count <= maximumLength else { break }
                return line
            }
            line += buffer[start..<end]
            start = end
            if line.count > maximumLength { break }
        }
        throw .make(.limitExceeded, "\(name): \(what) longer than \(maximumLength) bytes")
    }

    /// Fills `destination` completely; returns the number of bytes read, which is less only at the end of input.
    func read(into destination: UnsafeMutableRawBufferPointer) throws(MediaIOError) -> Int {
        guard let base = destination.baseAddress else { return 0 }
        var done = min(end - start, destination.count)
        if done > 0 {
            let offset = start, count = done
            buffer.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(rebasing: destination[0..<count])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
            }
            start += done
        }
        while done < destination.count {
            let count = Glibc.read(descriptor, base + done, destination.count - done)
            if count < 0 {
                if errno == EINTR { continue }
                throw .io("cannot read \(name)", errno: errno)
            }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// Up to `count` bytes as a new array (fewer only at the end of input).
    func read(count: Int) throws(MediaIOError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        var failure: MediaIOError?
        bytes.withUnsafeMutableBytes { raw in
            do throws(MediaIOError) { got = try read(into: raw) } catch { failure = error }
        }
        if let failure { throw failure }
        bytes.removeSubrange(got...)
        return bytes
    }

    /// Reads more bytes into the empty read-ahead buffer; false at the end of input.
    private func fill() throws(MediaIOError) -> Bool {
        start = 0
        end = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io("cannot read \(name)", errno: errno)
            }
            end = count
            return count > 0
        }
    }
}
