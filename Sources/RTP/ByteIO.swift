/// The byte vocabulary of RTPOut, stated once (swift-nio style): a `ByteReader` *reads* from the front of a slice and
/// moves forward; a `ByteWriter` *writes* at its index and moves forward. All multi-byte fields are network order.
///
/// Readers throw `truncated` instead of trapping. Writers do not check: every `marshal(into:)` first compares the
/// buffer against `marshalSize` and throws `outputTooSmall`, so a writer never runs past its buffer.

/// Reads big-endian fields from the front of a slice of a received packet, keeping slices (no copies).
struct ByteReader {
    private(set) var remaining: ArraySlice<UInt8>
    /// Index of `remaining.startIndex` when the reader was made, so errors report offsets into the packet.
    private let origin: Int

    init(_ bytes: ArraySlice<UInt8>) {
        remaining = bytes
        origin = bytes.startIndex
    }

    /// Offset of the next byte relative to the start of the input.
    var offset: Int { remaining.startIndex - origin }
    var count: Int { remaining.count }
    var isEmpty: Bool { remaining.isEmpty }

    mutating func readUInt8(_ what: @autoclosure () -> String) throws(RTPError) -> UInt8 {
        guard let byte = remaining.first else { throw .make(.truncated, "\(what()): need 1 byte", offset: offset) }
        remaining = remaining.dropFirst()
        return byte
    }

    mutating func readUInt16(_ what: @autoclosure () -> String) throws(RTPError) -> UInt16 {
        let bytes = try readBytes(2, what())
        return UInt16(bytes[bytes.startIndex]) << 8 | UInt16(bytes[bytes.startIndex + 1])
    }

    mutating func readUInt24(_ what: @autoclosure () -> String) throws(RTPError) -> UInt32 {
        let bytes = try readBytes(3, what())
        let i = bytes.startIndex
        return UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
    }

    mutating func readUInt32(_ what: @autoclosure () -> String) throws(RTPError) -> UInt32 {
        let bytes = try readBytes(4, what())
        let i = bytes.startIndex
        return UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
    }

    mutating func readBytes(_ n: Int, _ what: @autoclosure () -> String) throws(RTPError) -> ArraySlice<UInt8> {
        guard n >= 0, n <= remaining.count else {
            throw .make(.truncated, "\(what()): need \(n) bytes, \(remaining.count) left", offset: offset)
        }
        let bytes = remaining.prefix(n)
        remaining = remaining.dropFirst(n)
        return bytes
    }

    mutating func skip(_ n: Int, _ what: @autoclosure () -> String) throws(RTPError) {
        _ = try readBytes(n, what())
    }
}

/// Writes big-endian fields into a caller's buffer. The caller has checked the size (see the type comment).
struct ByteWriter {
    let buffer: UnsafeMutableRawBufferPointer
    private(set) var index: Int

    init(_ buffer: UnsafeMutableRawBufferPointer, at index: Int = 0) {
        self.buffer = buffer
        self.index = index
    }

    mutating func write(_ value: UInt8) {
        buffer[index] = value
        index += 1
    }

    mutating func write(_ value: UInt16) {
        buffer[index] = UInt8(truncatingIfNeeded: value >> 8)
        buffer[index + 1] = UInt8(truncatingIfNeeded: value)
        index += 2
    }

    mutating func writeUInt24(_ value: UInt32) {
        buffer[index] = UInt8(truncatingIfNeeded: value >> 16)
        buffer[index + 1] = UInt8(truncatingIfNeeded: value >> 8)
        buffer[index + 2] = UInt8(truncatingIfNeeded: value)
        index += 3
    }

    mutating func write(_ value: UInt32) {
        write(UInt16(truncatingIfNeeded: value >> 16))
        write(UInt16(truncatingIfNeeded: value))
    }

    mutating func write(_ value: UInt64) {
        write(UInt32(truncatingIfNeeded: value >> 32))
        write(UInt32(truncatingIfNeeded: value))
    }

    mutating func write<C: Collection<UInt8>>(bytes: C) {
        // Contiguous fast path: one memcpy instead of a byte loop (NAL units are kilobytes).
        let copied: Int? = bytes.withContiguousStorageIfAvailable { source in
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[index ..< index + source.count])
            target.copyMemory(from: UnsafeRawBufferPointer(source))
            return source.count
        }
        if let copied {
            index += copied
            return
        }
        for byte in bytes {
            buffer[index] = byte
            index += 1
        }
    }

    mutating func writeZeros(_ count: Int) {
        for _ in 0 ..< count { write(UInt8(0)) }
    }
}

/// Allocating convenience shared by every wire type: marshal into a fresh array of exactly `marshalSize` bytes.
func marshalToArray(size: Int, _ body: (UnsafeMutableRawBufferPointer) throws(RTPError) -> Int) throws(RTPError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: size)
    let written: Result<Int, RTPError> = bytes.withUnsafeMutableBytes { buffer in
        do throws(RTPError) { return .success(try body(buffer)) } catch { return .failure(error) }
    }
    let n = try written.get()
    if n < size { bytes.removeLast(size - n) }
    return bytes
}
