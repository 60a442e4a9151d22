/// An RTP header extension (RFC 3550 §5.3.1), read as RFC 8285 elements when its profile says so.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |      defined by profile       |           length              |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                        header extension                       |
///     |                             ....                              |
///
/// `length` counts 32-bit words after this first word. RFC 8285 §4.2 one-byte form: profile 0xBEDE, each element
/// `ID(4) L(4)` then L+1 bytes, ID 1…14 (0 is padding, 15 ends parsing). §4.3 two-byte form: profile 0x100 << 4 |
/// appbits, each element `ID(8) L(8)` then L bytes, ID 1…255 (0 is padding).
public enum RTPHeaderExtension: Sendable, Equatable {
    public struct Element: Sendable, Equatable {
        public var id: UInt8
        public var data: ArraySlice<UInt8>
        public init(id: UInt8, data: ArraySlice<UInt8>) {
            self.id = id
            self.data = data
        }
    }

    case oneByte([Element])
    case twoByte(appBits: UInt8, [Element])
    /// A non-RFC 8285 extension: the profile word and the raw data (a multiple of 4 bytes).
    case other(profile: UInt16, data: ArraySlice<UInt8>)

    /// The data of the RFC 8285 element with `id` (the first one), or nil.
    public func element(id: UInt8) -> ArraySlice<UInt8>? {
        switch self {
        case .oneByte(let elements), .twoByte(_, let elements): elements.first { $0.id == id }?.data
        case .other: nil
        }
    }

    static let oneByteProfile: UInt16 = 0xBEDE
    static let twoByteProfileBase: UInt16 = 0x1000

    /// Bytes of element data before word padding.
    private var unpaddedBodySize: Int {
        switch self {
        case .oneByte(let elements): elements.reduce(0) { $0 + 1 + $1.data.count }
        case .twoByte(_, let elements): elements.reduce(0) { $0 + 2 + $1.data.count }
        case .other(_, let data): data.count
        }
    }

    public var marshalSize: Int { 4 + (unpaddedBodySize + 3) / 4 * 4 }

    func marshal(into writer: inout ByteWriter) throws(RTPError) {
        let body = unpaddedBodySize
        let words = (body + 3) / 4
        guard words <= Int(UInt16.max) else { throw .make(.fieldOverflow, "header extension of \(words) words") }
        switch self {
        case .oneByte(let elements):
            writer.write(Self.oneByteProfile)
            writer.write(UInt16(words))
            for element in elements {
                guard (1 ... 14).contains(element.id) else {
                    throw .make(.fieldOverflow, "one-byte extension ID \(element.id) outside 1…14 (RFC 8285 §4.2)")
                }
                guard (1 ... 16).contains(element.data.count) else {
                    throw .make(.fieldOverflow, "one-byte extension element of \(element.data.count) bytes, allowed 1…16")
                }
                writer.write(element.id << 4 | UInt8(element.data.count - 1))
                writer.write(bytes: element.data)
            }
        case .twoByte(let appBits, let elements):
            guard appBits < 16 else { throw .make(.fieldOverflow, "appbits \(appBits) does not fit 4 bits") }
            writer.write(Self.twoByteProfileBase | UInt16(appBits))
            writer.write(UInt16(words))
            for element in elements {
                guard element.id != 0 else { throw .make(.fieldOverflow, "two-byte extension ID 0 is padding") }
                guard element.data.count <= 255 else {
                    throw .make(.fieldOverflow, "two-byte extension element of \(element.data.count) bytes, max 255")
                }
                writer.write(element.id)
                writer.write(UInt8(element.data.count))
                writer.write(bytes: element.data)
            }
        case .other(let profile, let data):
            guard data.count % 4 == 0 else { throw .make(.fieldOverflow, "extension data of \(data.count) bytes, not whole words") }
            writer.write(profile)
            writer.write(UInt16(words))
            writer.write(bytes: data)
        }
        writer.writeZeros(words * 4 - body)
    }

    static func parse(_ reader: inout ByteReader) throws(RTPError) -> RTPHeaderExtension {
        let profile = try reader.readUInt16("header extension profile")
        let words = try reader.readUInt16("header extension length")
        let bodyOffset = reader.offset
        let body = try reader.readBytes(Int(words) * 4, "header extension data")
        if profile == oneByteProfile {
            return .oneByte(try parseElements(body, bodyOffset: bodyOffset, twoByte: false))
        }
        if profile & 0xFFF0 == twoByteProfileBase {
            return .twoByte(appBits: UInt8(profile & 0x0F), try parseElements(body, bodyOffset: bodyOffset, twoByte: true))
        }
        return .other(profile: profile, data: body)
    }

    private static func parseElements(_ body: ArraySlice<UInt8>, bodyOffset: Int, twoByte: Bool) throws(RTPError) -> [Element] {
        var reader = ByteReader(body)
        var elements: [Element] = []
        while !reader.isEmpty {
            let first = try reader.readUInt8("extension element header")
            if first == 0 { continue }  // padding byte, RFC 8285 §4.1
            if twoByte {
                let length = try reader.readUInt8("two-byte extension element length")
                elements.append(Element(id: first, data: try reader.readBytes(Int(length), "two-byte extension element")))
            } else {
                let id = first >> 4
                if id == 15 { break }  // §4.2: stop parsing, the rest is not elements
                // §4.2 reserves ID 0 for padding, so a byte with ID 0 and a non-zero L is not an element either: skip
                // it alone, as libwebrtc does. Kept as an element it could never be written back (found by fuzzing).
                if id == 0 { continue }
                let length = Int(first & 0x0F) + 1
                guard reader.count >= length else {
                    throw .make(.truncated, "one-byte extension element ID \(id) needs \(length) bytes", offset: bodyOffset + reader.offset)
                }
                elements.append(Element(id: id, data: try reader.readBytes(length, "one-byte extension element")))
            }
        }
        return elements
    }
}
