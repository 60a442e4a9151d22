/// The one-byte H.264 NAL unit header (H.264 §7.3.1) and the RTP-only types RFC 6184 §5.2 adds to it.
///
///     +---------------+
///     |0|1|2|3|4|5|6|7|
///     +-+-+-+-+-+-+-+-+
///     |F|NRI|  Type   |
///     +---------------+
enum H264NAL {
    static func type(_ header: UInt8) -> UInt8 { header & 0x1F }
    static func nri(_ header: UInt8) -> UInt8 { header & 0x60 }
    static func forbiddenBit(_ header: UInt8) -> UInt8 { header & 0x80 }

    static let nonIDRSlice: UInt8 = 1
    static let idrSlice: UInt8 = 5
    static let sps: UInt8 = 7
    static let pps: UInt8 = 8
    static let accessUnitDelimiter: UInt8 = 9

    // RFC 6184 §5.2 Table 1: payload structure types, never valid inside an H.264 stream.
    static let stapA: UInt8 = 24
    static let stapB: UInt8 = 25
    static let mtap16: UInt8 = 26
    static let mtap24: UInt8 = 27
    static let fuA: UInt8 = 28
    static let fuB: UInt8 = 29

    /// Coded slice NAL units (H.264 Table 7-1, types 1…5).
    static func isVCL(_ type: UInt8) -> Bool { (1 ... 5).contains(type) }
}
