/// The RTP header extensions the send session writes (RFC 8285), each with the ID the SDP negotiated
/// (`a=extmap:ID URI`); nil leaves it out. IDs 1…14 use the one-byte form; an ID above 14 makes the whole block
/// two-byte (RFC 8285 §4.3; `a=extmap-allow-mixed` is not needed, there is one form per packet).
public struct RTPSendHeaderExtensions: Sendable, Equatable {
    /// `http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01`: a 16-bit sequence number shared
    /// by every packet the transport sends (media, retransmissions, padding), which transport-cc feedback refers to.
    public var transportSequenceNumberID: UInt8?
    /// `http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time`: the send time, 24 bits, 6.18 fixed-point
    /// seconds (wrapping every 64 s), for a receiver-side estimator (REMB).
    public var absoluteSendTimeID: UInt8?
    /// `http://www.webrtc.org/experiments/rtp-hdrext/playout-delay`, a constant on every packet.
    public var playoutDelay: PlayoutDelay?

    /// The playout-delay extension's ID and value: the delay range the receiver should keep between a frame's
    /// capture and its rendering, in 10 ms steps, 12 bits each (0…40.95 s).
    ///
    ///      0                   1                   2                   3
    ///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    ///     |  ID   | len=2 |       MIN delay       |       MAX delay       |
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    public struct PlayoutDelay: Sendable, Equatable {
        public var id: UInt8
        /// In 10 ms units, 0…4095.
        public var minimum: UInt16
        public var maximum: UInt16

        public init(id: UInt8, minimum: UInt16, maximum: UInt16) {
            self.id = id
            self.minimum = minimum
            self.maximum = maximum
        }

        /// min = max = 0: render each frame as soon as it is decoded (libwebrtc's receiver then sets no render
        /// delay and Chromium draws it with its low-latency renderer), at the cost of smoothing out jitter.
        public static func immediate(id: UInt8) -> Self { Self(id: id, minimum: 0, maximum: 0) }

        /// The element's three bytes.
        var bytes: [UInt8] {
            [UInt8(minimum >> 4), UInt8(minimum & 0xF) << 4 | UInt8(maximum >> 8), UInt8(maximum & 0xFF)]
        }
    }

    public static let playoutDelayURI = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"
    public static let transportSequenceNumberURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    public static let absoluteSendTimeURI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"

    public init(transportSequenceNumberID: UInt8? = nil, absoluteSendTimeID: UInt8? = nil, playoutDelay: PlayoutDelay? = nil) {
        self.transportSequenceNumberID = transportSequenceNumberID
        self.absoluteSendTimeID = absoluteSendTimeID
        self.playoutDelay = playoutDelay
    }

    public var isEmpty: Bool { transportSequenceNumberID == nil && absoluteSendTimeID == nil && playoutDelay == nil }

    /// abs-send-time of `time`: seconds in 6.18 fixed point, the low 24 bits (so it wraps every 64 s).
    public static func absoluteSendTime(_ time: RTPInstant) -> UInt32 {
        // ns · 2^18 / 1e9 = ns · 2^9 / 1953125; ns < 2^63 / 2^9 for any time within ±570 years of 1970.
        UInt32(truncatingIfNeeded: (time.nanosecondsSinceEpoch << 9) / 1_953_125) & 0xFF_FFFF
    }
}

/// Where the send session's extensions sit in every packet it writes: a block right behind the 12-byte fixed header
/// (the session writes no CSRCs), written with zeros when the packet is made, the values filled in when it is handed
/// to the transport (`pollTransmit`) — so a retransmission or a packet that waited in the queue carries the number
/// and time of the send that really happens.
struct SendHeaderExtensionLayout: Sendable {
    /// Profile word, length and the elements with zero values; empty when no extension is configured.
    let template: [UInt8]
    /// Offsets from the start of the packet.
    let transportSequenceNumberOffset: Int?
    let absoluteSendTimeOffset: Int?

    var size: Int { template.count }

    /// - Throws: `.fieldOverflow` for an ID of 0 (padding), 15 in the one-byte form, two extensions with one ID, or a
    ///   playout delay over 12 bits.
    init(_ extensions: RTPSendHeaderExtensions) throws(RTPError) {
        var elements: [(id: UInt8, length: Int)] = []
        if let id = extensions.transportSequenceNumberID { elements.append((id, 2)) }
        if let id = extensions.absoluteSendTimeID { elements.append((id, 3)) }
        // A constant: its value goes into the template (the last element), and `stamp` never touches it.
        if let delay = extensions.playoutDelay {
            guard delay.minimum <= 0xFFF, delay.maximum <= 0xFFF else {
                throw .make(.fieldOverflow, "playout delay \(delay.minimum)…\(delay.maximum) × 10 ms: each is 12 bits (≤ 4095)")
            }
            elements.append((delay.id, 3))
        }
        guard !elements.isEmpty else {
            template = []
            transportSequenceNumberOffset = nil
            absoluteSendTimeOffset = nil
            return
        }
        guard elements.allSatisfy({ $0.id != 0 }) else { throw .make(.fieldOverflow, "header extension ID 0 is padding (RFC 8285 §4.2)") }
        guard Set(elements.map(\.id)).count == elements.count else {
            throw .make(.fieldOverflow, "two header extensions with ID \(elements[0].id)")
        }
        let twoByte = elements.contains { $0.id > 14 }
        var bytes: [UInt8] = [0, 0, 0, 0]
        var offsets: [Int] = []
        for element in elements {
            if twoByte {
                bytes += [element.id, UInt8(element.length)]
            } else {
                bytes.append(element.id << 4 | UInt8(element.length - 1))
            }
            offsets.append(RTPHeader.fixedSize + bytes.count)
            bytes += repeatElement(0, count: element.length)
        }
        if let delay = extensions.playoutDelay, let offset = offsets.last {
            let start = offset - RTPHeader.fixedSize
            bytes.replaceSubrange(start ..< start + 3, with: delay.bytes)
        }
        while bytes.count % 4 != 0 { bytes.append(0) }
        let profile = twoByte ? RTPHeaderExtension.twoByteProfileBase : RTPHeaderExtension.oneByteProfile
        let words = UInt16(bytes.count / 4 - 1)
        bytes[0] = UInt8(profile >> 8)
        bytes[1] = UInt8(profile & 0xFF)
        bytes[2] = UInt8(words >> 8)
        bytes[3] = UInt8(words & 0xFF)
        template = bytes
        var offset = offsets.makeIterator()  // in the order the elements were appended
        transportSequenceNumberOffset = extensions.transportSequenceNumberID == nil ? nil : offset.next()
        absoluteSendTimeOffset = extensions.absoluteSendTimeID == nil ? nil : offset.next()
    }

    /// Fills in the values of a packet the session wrote (X bit set, no CSRC, our block behind the fixed header);
    /// leaves any other packet alone and says so.
    @discardableResult
    func stamp(_ packet: UnsafeMutableRawBufferPointer, transportSequenceNumber: UInt16, absoluteSendTime: UInt32) -> Bool {
        guard !template.isEmpty, packet.count >= RTPHeader.fixedSize + template.count,
              packet[0] & 0x1F == 0x10,  // X set, CC 0
              packet[12] == template[0], packet[13] == template[1] else { return false }
        if let offset = transportSequenceNumberOffset {
            packet[offset] = UInt8(truncatingIfNeeded: transportSequenceNumber >> 8)
            packet[offset + 1] = UInt8(truncatingIfNeeded: transportSequenceNumber)
        }
        if let offset = absoluteSendTimeOffset {
            packet[offset] = UInt8(truncatingIfNeeded: absoluteSendTime >> 16)
            packet[offset + 1] = UInt8(truncatingIfNeeded: absoluteSendTime >> 8)
            packet[offset + 2] = UInt8(truncatingIfNeeded: absoluteSendTime)
        }
        return true
    }
}

extension RTPHeader {
    /// Puts an extension block (profile, length, elements) behind the fixed header at the start of `packet` and sets
    /// the X bit; an empty block writes nothing. The packetizer's and the padding packets' one way to do it.
    static func writeExtensionBlock(_ block: [UInt8], into packet: UnsafeMutableRawBufferPointer) {
        guard !block.isEmpty else { return }
        packet[0] |= 0x10  // X
        block.withUnsafeBytes {
            UnsafeMutableRawBufferPointer(rebasing: packet[fixedSize ..< fixedSize + $0.count]).copyMemory(from: $0)
        }
    }
}
