import Foundation

/// Rewrites the display matrix of an MP4's first track header in place (ISO/IEC 14496-12 §8.3.2 `tkhd`): FFmpeg 5.1
/// has no `-display_rotation` (added in 6.0) and no longer writes a `rotate` tag as a matrix, so tests make their
/// rotated files this way from an ffmpeg-written MP4.
public enum TrackMatrix {
    public struct NotFound: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "\(path): no tkhd box" }
    }

    /// Sets the matrix of the first `tkhd` to `values` (a, b, u, c, d, v, x, y, w, written big-endian).
    public static func set(_ values: [Int32], in path: String) throws {
        precondition(values.count == 9)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let type = data.range(of: Data("tkhd".utf8)) else { throw NotFound(path: path) }
        let box = type.lowerBound - 4
        let version = data[type.upperBound]
        // size, type, version + flags; then (v0) creation, modification, track_ID, reserved, duration: 20 bytes or
        // (v1) 8 + 8 + 4 + 4 + 8; then reserved[2], layer, alternate_group, volume, reserved: 16.
        var offset = box + 12 + (version == 0 ? 20 : 32) + 16
        for value in values {
            withUnsafeBytes(of: UInt32(bitPattern: value).bigEndian) { data.replaceSubrange(offset..<offset + 4, with: $0) }
            offset += 4
        }
        try data.write(to: URL(fileURLWithPath: path))
    }
}
