/// A box of an ISO base media file (ISO/IEC 14496-12 §4.2): its type and its payload, a slice of the caller's bytes
/// (no copy).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                 size (header included; 1: largesize follows, |
/// |                       0: to the end of the enclosing data)    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  type (four ASCII characters)                 |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             largesize (64 bits, only when size is 1)          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// A full box (§4.2.2) starts its payload with version (8 bits) and flags (24 bits).
struct MP4Box {
    /// The four characters as a big-endian number ("moov" = 0x6D6F6F76), compared with `MP4Box.type("moov")`.
    let type: UInt32
    let payload: ArraySlice<UInt8>

    /// The type code of a four-character box name.
    static func type(_ name: StaticString) -> UInt32 {
        precondition(name.utf8CodeUnitCount == 4, "box types are four characters")
        return name.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    /// Size and type of a box header at the start of `bytes` (8 or 16 bytes), or nil when `bytes` is too short to
    /// hold one. `size` counts the header; nil means "to the end of the enclosing data" (size field 0).
    static func header(_ bytes: ArraySlice<UInt8>) -> (type: UInt32, headerSize: Int, size: UInt64?)? {
        var reader = MP4ByteReader(bytes)
        guard let size = reader.readUInt32(), let type = reader.readUInt32() else { return nil }
        switch size {
        case 0: return (type, 8, nil)
        case 1:
            guard let large = reader.readUInt64() else { return nil }
            return (type, 16, large)
        default: return (type, 8, UInt64(size))
        }
    }

    /// The boxes `bytes` is made of, in order; nil when one of them claims more bytes than there are or fewer than
    /// its own header (the data is damaged, or not boxes at all).
    static func children(of bytes: ArraySlice<UInt8>) -> [MP4Box]? {
        var boxes: [MP4Box] = []
        var rest = bytes
        while !rest.isEmpty {
            guard let (type, headerSize, declared) = header(rest) else { return nil }
            let size = declared ?? UInt64(rest.count)
            guard size >= UInt64(headerSize), size <= UInt64(rest.count) else { return nil }
            let end = rest.startIndex + Int(size)
            boxes.append(MP4Box(type: type, payload: rest[(rest.startIndex + headerSize)..<end]))
            rest = rest[end...]
        }
        return boxes
    }

    /// The first child box of type `name`, or nil (none, or the payload is not a sequence of boxes).
    func child(_ name: StaticString) -> MP4Box? {
        let wanted = Self.type(name)
        return Self.children(of: payload)?.first { $0.type == wanted }
    }

    /// Every child box of type `name`.
    func children(_ name: StaticString) -> [MP4Box] {
        let wanted = Self.type(name)
        return (Self.children(of: payload) ?? []).filter { $0.type == wanted }
    }
}

/// Big-endian reads over a slice that move an index and return nil past the end (swift-nio's rule: an out-of-range
/// read is nil, never a trap).
struct MP4ByteReader {
    private(set) var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var remaining: Int { bytes.count }

    mutating func readUInt8() -> UInt8? {
        guard let byte = bytes.first else { return nil }
        bytes = bytes.dropFirst()
        return byte
    }

    mutating func readUInt16() -> UInt16? { read(2).map { UInt16(truncatingIfNeeded: $0) } }
    mutating func readUInt24() -> UInt32? { read(3).map { UInt32(truncatingIfNeeded: $0) } }
    mutating func readUInt32() -> UInt32? { read(4).map { UInt32(truncatingIfNeeded: $0) } }
    mutating func readUInt64() -> UInt64? { read(8) }

    /// Skips `count` bytes; false (and nothing skipped) when there are fewer.
    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= bytes.count else { return false }
        bytes = bytes.dropFirst(count)
        return true
    }

    /// A full box's version and flags (§4.2.2).
    mutating func readVersionAndFlags() -> (version: UInt8, flags: UInt32)? {
        guard let version = readUInt8(), let flags = readUInt24() else { return nil }
        return (version, flags)
    }

    private mutating func read(_ count: Int) -> UInt64? {
        guard bytes.count >= count else { return nil }
        var value: UInt64 = 0
        for byte in bytes.prefix(count) { value = value << 8 | UInt64(byte) }
        bytes = bytes.dropFirst(count)
        return value
    }
}
