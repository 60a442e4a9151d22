import Bitstream
import MediaCore

/// Reads raw frames from a YUV4MPEG2 stream: a file, or a descriptor such as stdin (`-`).
///
/// 4:2:0 input comes out as I420 bytes unchanged, or as NV12 with the chroma planes interleaved; `mono` input gets
/// neutral chroma. Frame timestamps count frames at the header's rate (Y4M carries no timestamps). A stream that
/// ends inside a frame throws `.truncated` with the frame's index: a partial frame is never passed on.
public struct Y4MReader: FrameSource {
    public let header: Y4MHeader
    public let format: PixelFormat
    public var width: Int { header.width }
    public var height: Int { header.height }
    public var frameRate: Rational { header.frameRate }

    /// The longest `FRAME` line accepted (the tag plus optional parameters nobody uses in practice).
    public static let maximumFrameHeaderLength = 1024

    private let input: FileInput
    private var frameIndex = 0
    /// Cb and Cr as read, before interleaving into NV12; kept across frames so steady state allocates nothing.
    private var chromaScratch: [UInt8] = []

    /// Opens `path`, or standard input when `path` is `-`.
    public init(path: String, format: PixelFormat = .i420) throws(MediaIOError) {
        let input = path == "-" ? FileInput(borrowing: 0, name: "stdin") : try FileInput(path: path)
        try self.init(input: input, format: format)
    }

    /// Reads from a descriptor the caller keeps open (and closes) itself.
    public init(fileDescriptor: Int32, name: String = "input", format: PixelFormat = .i420) throws(MediaIOError) {
        try self.init(input: FileInput(borrowing: fileDescriptor, name: name), format: format)
    }

    private init(input: FileInput, format: PixelFormat) throws(MediaIOError) {
        guard let line = try input.readLine(maximumLength: Y4MHeader.maximumLength, what: "YUV4MPEG2 header") else {
            throw MediaIOError.make(.emptyInput, "\(input.name) is empty: no YUV4MPEG2 header")
        }
        self.header = try Y4MHeader.parse(line + [UInt8(ascii: "\n")])
        self.input = input
        self.format = format
    }

    public mutating func nextFrame(into buffer: inout PixelBuffer) throws(MediaIOError) -> MediaTime? {
        let line: [UInt8]
        do {
            guard let read = try input.readLine(maximumLength: Self.maximumFrameHeaderLength,
                                                what: "FRAME line of frame \(frameIndex)") else {
                return nil // Clean end: the input stopped exactly at a frame boundary.
            }
            line = read
        } catch {
            throw error.at(frame: frameIndex)
        }
        guard line.starts(with: Array("FRAME".utf8)), line.count == 5 || line[5] == UInt8(ascii: " ") else {
            throw MediaIOError(code: .invalidFormat,
                               reason: "\(input.name): expected FRAME before frame \(frameIndex)", frameIndex: frameIndex)
        }
        PixelBuffer.prepare(&buffer, format: format, width: width, height: height)
        try readPlane(into: &buffer.planes[0], rows: height, rowBytes: width, part: "luma")
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        switch (header.colorspace, format) {
        case (.mono, _):
            for index in 1..<buffer.planes.count {
                buffer.fillBytes(plane: index, column: 0, row: 0, count: buffer.rowBytes(ofPlane: index),
                                 rows: chromaHeight, value: 128)
            }
        case (_, .i420):
            try readPlane(into: &buffer.planes[1], rows: chromaHeight, rowBytes: chromaWidth, part: "Cb")
            try readPlane(into: &buffer.planes[2], rows: chromaHeight, rowBytes: chromaWidth, part: "Cr")
        case (_, .nv12):
            try readChromaInterleaving(into: &buffer.planes[1], chromaWidth: chromaWidth, chromaHeight: chromaHeight)
        }
        let pts = MediaTime(value: Int64(frameIndex) * Int64(frameRate.denominator), timescale: Int64(frameRate.numerator))
        frameIndex += 1
        return pts
    }

    /// Reads `rows` rows of `rowBytes` each into a plane, in one read when the plane has no stride padding.
    private func readPlane(into plane: inout PixelBuffer.Plane, rows: Int, rowBytes: Int, part: String) throws(MediaIOError) {
        let stride = plane.bytesPerRow
        let wanted = rows * rowBytes
        var got = 0
        var failure: MediaIOError?
        plane.bytes.withUnsafeMutableBytes { bytes in
            do throws(MediaIOError) {
                if stride == rowBytes {
                    got = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<wanted]))
                } else {
                    for row in 0..<rows {
                        let start = row * stride
                        let count = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[start..<(start + rowBytes)]))
                        got += count
                        if count < rowBytes { break }
                    }
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        try checkComplete(got: got, wanted: wanted, part: part)
    }

    /// Reads the Cb and Cr planes into scratch, then interleaves them into NV12's CbCr plane.
    private mutating func readChromaInterleaving(
        into plane: inout PixelBuffer.Plane, chromaWidth: Int, chromaHeight: Int
    ) throws(MediaIOError) {
        let planeSize = chromaWidth * chromaHeight
        if chromaScratch.count != 2 * planeSize { chromaScratch = [UInt8](repeating: 0, count: 2 * planeSize) }
        let input = self.input
        var got = 0
        var failure: MediaIOError?
        chromaScratch.withUnsafeMutableBytes { bytes in
            do throws(MediaIOError) { got = try input.read(into: bytes) } catch { failure = error }
        }
        if let failure { throw failure }
        try checkComplete(got: got, wanted: 2 * planeSize, part: "chroma")
        let stride = plane.bytesPerRow
        chromaScratch.withUnsafeBufferPointer { scratch in
            plane.bytes.withUnsafeMutableBufferPointer { out in
                for row in 0..<chromaHeight {
                    let cb = row * chromaWidth, cr = planeSize + row * chromaWidth, line = row * stride
                    for column in 0..<chromaWidth {
                        out[line + 2 * column] = scratch[cb + column]
                        out[line + 2 * column + 1] = scratch[cr + column]
                    }
                }
            }
        }
    }

    private func checkComplete(got: Int, wanted: Int, part: String) throws(MediaIOError) {
        guard got == wanted else {
            throw .make(.truncated, "\(input.name): frame \(frameIndex) is truncated: \(part) has \(got) of \(wanted) bytes")
                .at(frame: frameIndex)
        }
    }
}
