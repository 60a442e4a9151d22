#if canImport(Glibc)
    import Glibc
#endif
import EncoderSession

/// The frames of a 4:2:0 Y4M file, read one at a time into an I420 `PixelBuffer` and looped at the end. Only what
/// the probe needs (ffmpeg's yuv4mpegpipe output); the library's reader lives in MediaIO, which is not a product.
final class Y4MFrames {
    let width: Int
    let height: Int
    private let file: UnsafeMutablePointer<FILE>
    private let dataStart: Int

    init?(path: String) {
        guard let file = fopen(path, "rb") else { return nil }
        self.file = file
        guard let header = Self.readLine(file), header.hasPrefix("YUV4MPEG2 ") else { return nil }
        var width = 0, height = 0
        for token in header.split(separator: " ") {
            if token.first == "W" { width = Int(token.dropFirst()) ?? 0 }
            if token.first == "H" { height = Int(token.dropFirst()) ?? 0 }
        }
        guard width > 0, height > 0, width % 2 == 0, height % 2 == 0 else { return nil }
        self.width = width
        self.height = height
        dataStart = ftell(file)
    }

    deinit { fclose(file) }

    /// Fills `buffer` (I420, this size) with the next frame; wraps around at the end of the file.
    func next(into buffer: inout PixelBuffer) -> Bool {
        if let line = Self.readLine(file), line.hasPrefix("FRAME"), readPlanes(&buffer) { return true }
        fseek(file, dataStart, SEEK_SET)
        guard let line = Self.readLine(file), line.hasPrefix("FRAME") else { return false }
        return readPlanes(&buffer)
    }

    private func readPlanes(_ buffer: inout PixelBuffer) -> Bool {
        for index in buffer.planes.indices {
            let expected = buffer.planes[index].bytes.count
            let read = buffer.planes[index].bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, expected, file) }
            if read != expected { return false }
        }
        return true
    }

    private static func readLine(_ file: UnsafeMutablePointer<FILE>) -> String? {
        var bytes: [UInt8] = []
        while bytes.count < 1024 {
            let c = fgetc(file)
            if c == EOF { return nil }
            if c == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(UInt8(truncatingIfNeeded: c))
        }
        return nil
    }
}
