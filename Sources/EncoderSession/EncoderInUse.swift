/// Which encoder a session uses and why (VideoToolbox's UsingHardwareAcceleratedVideoEncoder, with a reason).
public struct EncoderInUse: Sendable, Hashable, CustomStringConvertible {
    /// "libx264", "libx265", "h264_vaapi" or "hevc_vaapi".
    public var name: String
    public var isHardwareAccelerated: Bool
    /// E.g. "VA-API unavailable: no usable VA display for /dev/dri/renderD128: Invalid argument — using libx264".
    public var reason: String

    init(name: String, isHardwareAccelerated: Bool, reason: String) {
        self.name = name
        self.isHardwareAccelerated = isHardwareAccelerated
        self.reason = reason
    }

    init(_ backend: any CodecBackend, reason: String) {
        self.init(name: backend.encoderName, isHardwareAccelerated: backend.isHardwareAccelerated, reason: reason)
    }

    public var description: String { "\(name) (\(reason))" }
}
