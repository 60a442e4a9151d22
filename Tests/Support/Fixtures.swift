import Foundation

/// Test media made at test time with ffmpeg's lavfi sources (nothing large is committed).
public enum LavfiMedia {
    /// Writes `frames` frames of ffmpeg's testsrc2 at `size` and `rate` to `path`, encoded as `arguments` say (the
    /// container or raw format follows `path`'s extension unless `arguments` name one with -f). Throws `ToolError`
    /// with ffmpeg's message when it fails.
    public static func testsrc2(
        _ path: String, size: String, frames: Int, rate: Int = 30, arguments: [String] = ["-c:v", "libx264"]
    ) throws {
        _ = try Tool.output("ffmpeg", [
            "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)",
            "-frames:v", "\(frames)",
        ] + arguments + [path], timeout: 60)
    }
}
