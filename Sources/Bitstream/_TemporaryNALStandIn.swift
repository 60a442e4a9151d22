// TEMPORARY STAND-IN — the lead deletes this file at merge.
//
// The real `NALUnitType` and `NALUnitHeader` live in NALUnitHeader.swift, written on another branch. These minimal
// copies only let the h-syntax branch compile on its own; they declare exactly the API the syntax parsers use.

/// nal_unit_type (H.264 §7.4.1, Table 7-1).
public struct NALUnitType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let slice = NALUnitType(rawValue: 1)
    public static let idr = NALUnitType(rawValue: 5)
    public static let sei = NALUnitType(rawValue: 6)
    public static let sps = NALUnitType(rawValue: 7)
    public static let pps = NALUnitType(rawValue: 8)
    public static let accessUnitDelimiter = NALUnitType(rawValue: 9)
    public static let endOfSequence = NALUnitType(rawValue: 10)
    public static let endOfStream = NALUnitType(rawValue: 11)
    public static let fillerData = NALUnitType(rawValue: 12)
    public static let spsExtension = NALUnitType(rawValue: 13)
    public static let prefix = NALUnitType(rawValue: 14)
    public static let subsetSPS = NALUnitType(rawValue: 15)
    public static let sliceExtension = NALUnitType(rawValue: 20)
}

/// The one-byte NAL unit header (H.264 §7.3.1).
public struct NALUnitHeader: Hashable, Sendable {
    public var forbiddenZeroBit: Bool
    public var nalRefIdc: UInt8
    public var nalUnitType: NALUnitType

    public init(_ byte: UInt8) {
        forbiddenZeroBit = byte & 0x80 != 0
        nalRefIdc = (byte >> 5) & 0x03
        nalUnitType = NALUnitType(rawValue: byte & 0x1F)
    }
}
