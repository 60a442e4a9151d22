/// An RTP packet: header, payload (a slice of the received bytes, not a copy) and RFC 3550 §5.1 padding.
///
/// Padding: when P is set, the last byte of the packet counts the padding bytes including itself, so it is ≥ 1 and
/// no larger than what follows the header.
public struct RTPPacket: Sendable, Equatable {
    public var header: RTPHeader
    public var payload: ArraySlice<UInt8>
    /// Number of padding bytes at the end (0 = P bit clear). Written as zeros with the count in the last byte.
    public var paddingSize: UInt8

    public init(header: RTPHeader, payload: ArraySlice<UInt8>, paddingSize: UInt8 = 0) {
        self.header = header
        self.payload = payload
        self.paddingSize = paddingSize
    }

    public var marshalSize: Int { header.marshalSize + payload.count + Int(paddingSize) }

    /// Writes the packet at the start of `buffer` without allocating; returns the number of bytes written.
    public func marshal(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        let size = marshalSize
        guard buffer.count >= size else { throw .outputTooSmall(need: size, have: buffer.count) }
        var writer = ByteWriter(buffer)
        try header.marshal(into: &writer, padding: paddingSize > 0)
        writer.write(bytes: payload)
        if paddingSize > 0 {
            writer.writeZeros(Int(paddingSize) - 1)
            writer.write(paddingSize)
        }
        return writer.index
    }

    /// Allocating convenience.
    public func marshal() throws(RTPError) -> [UInt8] {
        try marshalToArray(size: marshalSize) { buffer throws(RTPError) in try marshal(into: buffer) }
    }

    /// Strict parse: version 2, every declared CSRC/extension byte present, padding count consistent.
    public init(parsing bytes: ArraySlice<UInt8>) throws(RTPError) {
        var reader = ByteReader(bytes)
        let (header, padding) = try RTPHeader.parse(&reader)
        var payload = reader.remaining
        var paddingSize: UInt8 = 0
        if padding {
            guard let count = payload.last else {
                throw .make(.truncated, "P bit set but no padding count byte", offset: reader.offset)
            }
            guard count >= 1, Int(count) <= payload.count else {
                throw .make(.invalidValue, "padding count \(count) with \(payload.count) bytes after the header", offset: bytes.count - 1)
            }
            paddingSize = count
            payload = payload.dropLast(Int(count))
        }
        self.init(header: header, payload: payload, paddingSize: paddingSize)
    }

    public init(parsing bytes: [UInt8]) throws(RTPError) {
        try self.init(parsing: bytes[...])
    }
}
