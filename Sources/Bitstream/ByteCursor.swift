// Small internal helpers shared by the byte layer: the libc calls the hot loops use, and big-endian NAL unit length
// prefixes of 1 to 4 bytes (ISO/IEC 14496-15 §5.3.3.1.2, `lengthSizeMinusOne`).
//
// Raw pointers never leave the closures that lend them (the swift-nio rule); these helpers only take pointers that
// a caller holds inside such a closure.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

enum ByteLayer {
    /// The NAL unit length sizes rtenc writes: the ones ISO/IEC 14496-15 allows (`lengthSizeMinusOne` ∈ {0, 1, 3}).
    @inline(__always)
    static func checkLengthSize(_ lengthSize: Int) throws(BitstreamError) {
        guard lengthSize == 1 || lengthSize == 2 || lengthSize == 4 else {
            throw .invalidLengthSize(lengthSize)
        }
    }

    /// The NAL unit length sizes rtenc reads: any the 2-bit `lengthSizeMinusOne` can say, 3 bytes included. The
    /// standard reserves 3 bytes, but FFmpeg's decoders, its `*_mp4toannexb` filters and its parsers read whatever
    /// the record says, so a file another muxer wrote that way plays there; it reads here too.
    @inline(__always)
    static func checkReadableLengthSize(_ lengthSize: Int) throws(BitstreamError) {
        guard (1...4).contains(lengthSize) else {
            throw .invalidLengthSize(lengthSize)
        }
    }

    /// The largest NAL unit a length prefix of `lengthSize` bytes can describe.
    @inline(__always)
    static func maxNALUnitLength(lengthSize: Int) -> Int {
        lengthSize >= 4 ? Int(UInt32.max) : (1 << (8 * lengthSize)) - 1
    }

    /// Reads a big-endian length of `lengthSize` (1 to 4) bytes at `offset`; the caller has checked bounds.
    @inline(__always)
    static func readLength(_ base: UnsafeRawPointer, at offset: Int, lengthSize: Int) -> Int {
        switch lengthSize {
        case 4: Int(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 2: Int(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 3:
            Int(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))) << 8
                | Int(base.load(fromByteOffset: offset + 2, as: UInt8.self))
        default: Int(base.load(fromByteOffset: offset, as: UInt8.self))
        }
    }

    /// Writes `value` big-endian in `lengthSize` bytes at `offset`; the caller has checked bounds and range.
    @inline(__always)
    static func writeLength(_ value: Int, to base: UnsafeMutableRawPointer, at offset: Int, lengthSize: Int) {
        for k in 0..<lengthSize {
            let shift = 8 * (lengthSize - 1 - k)
            base.storeBytes(of: UInt8(truncatingIfNeeded: value >> shift), toByteOffset: offset + k, as: UInt8.self)
        }
    }

    /// Writes the 4-byte start code 00 00 00 01 at `offset` as one unaligned 32-bit store.
    @inline(__always)
    static func writeStartCode(to base: UnsafeMutableRawPointer, at offset: Int) {
        base.storeBytes(of: UInt32(1).bigEndian, toByteOffset: offset, as: UInt32.self)
    }

    /// Index of the first byte equal to `byte` in `base[from..<count]`, found with libc `memchr` (vectorised in
    /// glibc, which is what makes the start-code scan run near memory speed).
    @inline(__always)
    static func find(_ byte: UInt8, in base: UnsafeRawPointer, from: Int, count: Int) -> Int? {
        guard from < count, let hit = memchr(base + from, Int32(byte), count - from) else { return nil }
        return UnsafeRawPointer(hit) - base
    }

    /// Overlapping copy (libc `memmove`), for compacting a buffer in place.
    @inline(__always)
    static func move(_ base: UnsafeMutableRawPointer, to destination: Int, from source: Int, count: Int) {
        guard count > 0, destination != source else { return }
        memmove(base + destination, base + source, count)
    }

    /// Copies any collection of bytes to `destination`, in bulk when it has contiguous storage.
    @inline(__always)
    static func copy<Bytes: Collection<UInt8>>(_ bytes: Bytes, to destination: UnsafeMutableRawPointer) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            guard let source = buffer.baseAddress else { return }
            destination.copyMemory(from: source, byteCount: buffer.count)
        }
        if done == nil {
            var offset = 0
            for byte in bytes {
                destination.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
                offset += 1
            }
        }
    }

    /// Lends the bytes of `slice` as a raw buffer; the pointer lives only inside `body`.
    @inline(__always)
    static func withRaw<R>(
        _ slice: ArraySlice<UInt8>, _ body: (UnsafeRawBufferPointer) throws(BitstreamError) -> R
    ) throws(BitstreamError) -> R {
        // withUnsafeBytes rethrows untyped errors; carry the typed error out through a Result.
        let result: Result<R, BitstreamError> = slice.withUnsafeBytes { raw in
            do throws(BitstreamError) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Lends the bytes of `array` as a mutable raw buffer; the pointer lives only inside `body`.
    @inline(__always)
    static func withMutableRaw<R>(
        _ array: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(BitstreamError) -> R
    ) throws(BitstreamError) -> R {
        let result: Result<R, BitstreamError> = array.withUnsafeMutableBytes { raw in
            do throws(BitstreamError) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
