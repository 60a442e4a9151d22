/// The raw pixel layouts sources produce and the encoder accepts (VideoToolbox's
/// kCVPixelFormatType_420YpCbCr8BiPlanar… and …Planar).
public enum PixelFormat: String, Sendable, Hashable, CaseIterable {
    /// Y plane, then one interleaved CbCr plane at half width and half height.
    case nv12
    /// Y plane, then Cb and Cr planes at half width and half height.
    case i420

    /// Number of planes in this layout.
    public var planeCount: Int { self == .nv12 ? 2 : 3 }
}

/// One uncompressed picture: planes of bytes with a stride (bytes per row) each.
///
/// The shape of CVPixelBuffer without the reference semantics: a value type whose planes are copy-on-write arrays,
/// so a caller can keep one buffer and refill it every frame without allocating.
public struct PixelBuffer: Sendable {
    public struct Plane: Sendable {
        /// The plane's bytes; at least `bytesPerRow * (rows - 1) + rowBytes` of them.
        public var bytes: [UInt8]
        /// Distance in bytes from one row to the next (CVPixelBufferGetBytesPerRowOfPlane).
        public var bytesPerRow: Int

        public init(bytes: [UInt8], bytesPerRow: Int) {
            self.bytes = bytes
            self.bytesPerRow = bytesPerRow
        }
    }

    public let format: PixelFormat
    public let width: Int
    public let height: Int
    public var planes: [Plane]

    /// Wraps planes the caller filled. Geometry is checked by the consumer (`checkLayout(format:width:height:)`, when
    /// the buffer is encoded), not here, so a session can report a bad buffer as a typed error with its frame.
    public init(format: PixelFormat, width: Int, height: Int, planes: [Plane]) {
        self.format = format
        self.width = width
        self.height = height
        self.planes = planes
    }

    /// Allocates a zero-filled (green in YCbCr) buffer with tightly packed rows.
    public init(format: PixelFormat, width: Int, height: Int) {
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        var planes = [Plane(bytes: [UInt8](repeating: 0, count: width * height), bytesPerRow: width)]
        switch format {
        case .nv12:
            planes.append(
                Plane(
                    bytes: [UInt8](repeating: 128, count: chromaWidth * 2 * chromaHeight), bytesPerRow: chromaWidth * 2)
            )
        case .i420:
            planes.append(
                Plane(bytes: [UInt8](repeating: 128, count: chromaWidth * chromaHeight), bytesPerRow: chromaWidth))
            planes.append(
                Plane(bytes: [UInt8](repeating: 128, count: chromaWidth * chromaHeight), bytesPerRow: chromaWidth))
        }
        self.init(format: format, width: width, height: height, planes: planes)
    }

    /// Bytes of pixel data in one row of plane `index` (not counting stride padding).
    public func rowBytes(ofPlane index: Int) -> Int {
        let chromaWidth = (width + 1) / 2
        switch (format, index) {
        case (_, 0): return width
        case (.nv12, _): return chromaWidth * 2
        case (.i420, _): return chromaWidth
        }
    }

    /// Rows in plane `index`.
    public func rows(ofPlane index: Int) -> Int {
        index == 0 ? height : (height + 1) / 2
    }
}
