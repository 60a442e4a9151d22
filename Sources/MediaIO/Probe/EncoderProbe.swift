import LibAVSupport

/// One libavcodec encoder this project can drive, and whether this build of libavcodec has it.
public struct LibAVEncoderReport: Sendable, Hashable {
    /// libavcodec's name ("libx264", "h264_vaapi").
    public var name: String
    public var available: Bool
    /// libavcodec's description ("libx264 H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10"), when available.
    public var longName: String?
    /// True for encoders that need a VA-API device (a "_vaapi" suffix); these are listed even without a device.
    public var needsHardware: Bool { name.hasSuffix("_vaapi") }
}

/// Which encoders libavcodec offers (`avcodec_find_encoder_by_name`).
public enum EncoderProbe {
    /// The encoders `rtenc probe` asks about: software H.264/HEVC and the VA-API ones.
    public static let knownEncoders = ["libx264", "libopenh264", "libx265", "h264_vaapi", "hevc_vaapi"]

    /// - Throws: `.libraryUnavailable` when libavcodec cannot be loaded (rtenc opens it on first use).
    public static func libavcodecEncoders(
        named names: [String] = knownEncoders
    ) throws(MediaIOError) -> [LibAVEncoderReport] {
        var reports: [LibAVEncoderReport] = []
        for name in names {
            guard let description = try LibAV.encoderDescription(named: name) else {
                reports.append(LibAVEncoderReport(name: name, available: false, longName: nil))
                continue
            }
            reports.append(LibAVEncoderReport(name: name, available: true, longName: description))
        }
        return reports
    }
}
