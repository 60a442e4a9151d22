import MediaCore
import Testing

/// The one geometry check (`checkLayout`) that the encoder reports and the sources use to decide whether a buffer
/// can be reused.
@Suite struct PixelBufferLayoutTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let buffer: @Sendable () -> PixelBuffer
        let expected: PixelBufferLayoutError?
        var testDescription: String { name }
    }

    /// Every case is checked against nv12 160×120.
    static let cases: [Case] = [
        Case(name: "allocated to fit", buffer: { PixelBuffer(format: .nv12, width: 160, height: 120) }, expected: nil),
        Case(name: "padded strides, last row unpadded", buffer: {
            PixelBuffer(format: .nv12, width: 160, height: 120, planes: [
                .init(bytes: [UInt8](repeating: 0, count: 192 * 119 + 160), bytesPerRow: 192),
                .init(bytes: [UInt8](repeating: 0, count: 192 * 59 + 160), bytesPerRow: 192),
            ])
        }, expected: nil),
        Case(name: "other format", buffer: { PixelBuffer(format: .i420, width: 160, height: 120) },
             expected: .format(.i420, expected: .nv12)),
        Case(name: "other size", buffer: { PixelBuffer(format: .nv12, width: 160, height: 90) },
             expected: .size(width: 160, height: 90, expectedWidth: 160, expectedHeight: 120)),
        Case(name: "missing chroma plane", buffer: {
            var buffer = PixelBuffer(format: .nv12, width: 160, height: 120)
            buffer.planes.removeLast()
            return buffer
        }, expected: .planeCount(1, format: .nv12)),
        Case(name: "stride shorter than a row", buffer: {
            var buffer = PixelBuffer(format: .nv12, width: 160, height: 120)
            buffer.planes[1].bytesPerRow = 159
            return buffer
        }, expected: .strideTooSmall(plane: 1, bytesPerRow: 159, rowBytes: 160)),
        Case(name: "luma one byte short", buffer: {
            var buffer = PixelBuffer(format: .nv12, width: 160, height: 120)
            buffer.planes[0].bytes.removeLast()
            return buffer
        }, expected: .planeTooShort(plane: 0, byteCount: 160 * 120 - 1, rows: 120, bytesPerRow: 160)),
        Case(name: "stride overflowing the product", buffer: {
            var buffer = PixelBuffer(format: .nv12, width: 160, height: 120)
            buffer.planes[0].bytesPerRow = Int.max / 2
            return buffer
        }, expected: .planeTooShort(plane: 0, byteCount: 160 * 120, rows: 120, bytesPerRow: Int.max / 2)),
    ]

    @Test(arguments: cases)
    func checksTheLayout(_ testCase: Case) {
        let buffer = testCase.buffer()
        var thrown: PixelBufferLayoutError?
        do {
            try buffer.checkLayout(format: .nv12, width: 160, height: 120)
        } catch {
            thrown = error
        }
        #expect(thrown == testCase.expected)
        #expect(buffer.matches(format: .nv12, width: 160, height: 120) == (testCase.expected == nil))
    }

    @Test(arguments: [
        // the reason the encoder reports (EncoderSessionError.invalidPixelBuffer), word for word
        (PixelBufferLayoutError.format(.i420, expected: .nv12), "buffer is i420, session expects nv12"),
        (.size(width: 2, height: 4, expectedWidth: 6, expectedHeight: 8), "buffer is 2×4, session expects 6×8"),
        (.planeCount(1, format: .i420), "i420 needs 3 planes, buffer has 1"),
        (.strideTooSmall(plane: 2, bytesPerRow: 7, rowBytes: 8), "plane 2: bytesPerRow 7 < row of 8 bytes"),
        (.planeTooShort(plane: 1, byteCount: 10, rows: 3, bytesPerRow: 4),
         "plane 1: 10 bytes, too few for 3 rows of stride 4"),
    ])
    func describesTheProblem(error: PixelBufferLayoutError, expected: String) {
        #expect(error.description == expected)
    }

    @Test(arguments: [
        // format, width, height → (plane, rowBytes, rows) for each plane; odd sizes round chroma up
        (PixelFormat.nv12, 6, 4, [(0, 6, 4), (1, 6, 2)]),
        (.nv12, 5, 3, [(0, 5, 3), (1, 6, 2)]),
        (.i420, 6, 4, [(0, 6, 4), (1, 3, 2), (2, 3, 2)]),
        (.i420, 5, 3, [(0, 5, 3), (1, 3, 2), (2, 3, 2)]),
    ])
    func allocatesTightPlanes(format: PixelFormat, width: Int, height: Int, planes: [(Int, Int, Int)]) {
        let buffer = PixelBuffer(format: format, width: width, height: height)
        #expect(buffer.planes.count == format.planeCount && planes.count == format.planeCount)
        for (index, rowBytes, rows) in planes {
            #expect(buffer.rowBytes(ofPlane: index) == rowBytes)
            #expect(buffer.rows(ofPlane: index) == rows)
            #expect(buffer.planes[index].bytesPerRow == rowBytes)
            #expect(buffer.planes[index].bytes.count == rowBytes * rows)
            // Luma black-ish zero, chroma neutral grey.
            #expect(buffer.planes[index].bytes.allSatisfy { $0 == (index == 0 ? 0 : 128) })
        }
        #expect(buffer.matches(format: format, width: width, height: height))
    }
}
