import EncoderSession
import MediaIO

/// The frames of a Y4M file as I420, looped at the end: MediaIO's reader, reopened when it runs out.
final class Y4MFrames {
    let path: String
    let width: Int
    let height: Int
    private var reader: Y4MReader

    init?(path: String) {
        guard let reader = try? Y4MReader(path: path, format: .i420) else { return nil }
        self.path = path
        self.reader = reader
        width = reader.width
        height = reader.height
    }

    /// Fills `buffer` (I420, this size) with the next frame; wraps around at the end of the file.
    func next(into buffer: inout PixelBuffer) -> Bool {
        if (try? reader.nextFrame(into: &buffer)) ?? nil != nil { return true }
        guard let reopened = try? Y4MReader(path: path, format: .i420) else { return false }
        reader = reopened
        return (try? reader.nextFrame(into: &buffer)) ?? nil != nil
    }
}
