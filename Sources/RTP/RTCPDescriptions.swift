/// SDES (RFC 3550 §6.5) and BYE (§6.6).
///
/// SDES (PT = 202), SC chunks, each: SSRC/CSRC, then items `type(8) length(8) text`, ended by a zero type byte and
/// zero-padded to a 32-bit boundary:
///
///     |V=2|P|    SC   |  PT=SDES=202  |             length            |
///     |                          SSRC/CSRC_1                          |
///     |    CNAME=1    |     length    | user and domain name        ...
///
/// BYE (PT = 203): SC SSRCs, then an optional `length(8) reason` padded to 32 bits.
public struct SourceDescription: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        /// SDES item type (1 = CNAME, 2 = NAME, … 8 = PRIV).
        public var type: UInt8
        public var text: ArraySlice<UInt8>
        public init(type: UInt8, text: ArraySlice<UInt8>) {
            self.type = type
            self.text = text
        }
        public static func cname(_ name: String) -> Item { Item(type: 1, text: Array(name.utf8)[...]) }
    }

    public struct Chunk: Sendable, Equatable {
        public var source: UInt32
        public var items: [Item]
        public init(source: UInt32, items: [Item]) {
            self.source = source
            self.items = items
        }
        /// Items plus the terminating null, rounded up to a word.
        var size: Int { 4 + (items.reduce(0) { $0 + 2 + $1.text.count } + 1 + 3) / 4 * 4 }
    }

    public var chunks: [Chunk]
    public init(chunks: [Chunk]) { self.chunks = chunks }
    public static func cname(ssrc: UInt32, _ name: String) -> SourceDescription {
        SourceDescription(chunks: [Chunk(source: ssrc, items: [.cname(name)])])
    }

    /// The first CNAME of the chunk for `ssrc`.
    public func cname(of ssrc: UInt32) -> String? {
        guard let item = chunks.first(where: { $0.source == ssrc })?.items.first(where: { $0.type == 1 }) else { return nil }
        return String(decoding: item.text, as: UTF8.self)
    }

    var bodySize: Int { chunks.reduce(0) { $0 + $1.size } }

    func validate() throws(RTPError) {
        guard chunks.count <= 31 else { throw .make(.fieldOverflow, "\(chunks.count) SDES chunks, SC holds 31") }
        for chunk in chunks {
            for item in chunk.items where item.text.count > 255 || item.type == 0 {
                throw .make(.fieldOverflow, "SDES item type \(item.type) of \(item.text.count) bytes (type ≥ 1, ≤ 255 bytes)")
            }
        }
    }

    func marshalBody(into writer: inout ByteWriter) {
        for chunk in chunks {
            let start = writer.index
            writer.write(chunk.source)
            for item in chunk.items {
                writer.write(item.type)
                writer.write(UInt8(item.text.count))
                writer.write(bytes: item.text)
            }
            writer.writeZeros(start + chunk.size - writer.index)  // the null item and the word padding
        }
    }

    static func parse(count: UInt8, body: ArraySlice<UInt8>) throws(RTPError) -> SourceDescription {
        var reader = ByteReader(body)
        var chunks: [Chunk] = []
        for _ in 0 ..< count {
            let start = reader.offset
            let source = try reader.readUInt32("SDES chunk SSRC")
            var items: [Item] = []
            while true {
                let type = try reader.readUInt8("SDES item type")
                if type == 0 { break }
                let length = try reader.readUInt8("SDES item length")
                items.append(Item(type: type, text: try reader.readBytes(Int(length), "SDES item text")))
            }
            let used = reader.offset - start
            try reader.skip((4 - used % 4) % 4, "SDES chunk padding")
            chunks.append(Chunk(source: source, items: items))
        }
        return SourceDescription(chunks: chunks)
    }
}

public struct Goodbye: Sendable, Equatable {
    public var sources: [UInt32]
    public var reason: ArraySlice<UInt8>

    public init(sources: [UInt32], reason: String = "") {
        self.sources = sources
        self.reason = Array(reason.utf8)[...]
    }

    var bodySize: Int { 4 * sources.count + (reason.isEmpty ? 0 : (1 + reason.count + 3) / 4 * 4) }

    func validate() throws(RTPError) {
        guard sources.count <= 31 else { throw .make(.fieldOverflow, "\(sources.count) BYE sources, SC holds 31") }
        guard reason.count <= 255 else { throw .make(.fieldOverflow, "BYE reason of \(reason.count) bytes, max 255") }
    }

    func marshalBody(into writer: inout ByteWriter) {
        for source in sources { writer.write(source) }
        guard !reason.isEmpty else { return }
        writer.write(UInt8(reason.count))
        writer.write(bytes: reason)
        writer.writeZeros((4 - (1 + reason.count) % 4) % 4)
    }

    static func parse(count: UInt8, body: ArraySlice<UInt8>) throws(RTPError) -> Goodbye {
        var reader = ByteReader(body)
        var sources: [UInt32] = []
        for _ in 0 ..< count { sources.append(try reader.readUInt32("BYE SSRC")) }
        var bye = Goodbye(sources: sources)
        if !reader.isEmpty {
            let length = try reader.readUInt8("BYE reason length")
            bye.reason = try reader.readBytes(Int(length), "BYE reason")
        }
        return bye
    }
}
