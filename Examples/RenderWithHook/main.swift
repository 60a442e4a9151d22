// A timeline rendered in black and white with a progress bar along the bottom, through PostCompositionHook, and
// encoded to an Annex-B H.264 file.
//   swift run RenderWithHook timeline.json out.h264
import Composition
import EncoderSession
import Glibc
import MediaCore
import MediaIO
import Synchronization

/// Black and white, and a white bar along the bottom that grows with the output frame index.
struct MonochromeWithProgress: PostCompositionHook {
    let totalFrames: Int

    mutating func process(_ frame: inout PixelBuffer, index: Int, time: MediaTime) throws(CompositionError) {
        for plane in 1...2 {  // Cb and Cr to neutral: no colour
            frame.planes[plane].bytes.withUnsafeMutableBufferPointer { $0.update(repeating: 128) }
        }
        let width = frame.width * min(index + 1, totalFrames) / totalFrames
        let stride = frame.planes[0].bytesPerRow
        frame.planes[0].bytes.withUnsafeMutableBufferPointer { luma in
            for row in max(frame.height - 8, 0)..<frame.height {  // Y′ 235: white in limited range
                luma[(row * stride)..<(row * stride + width)].update(repeating: 235)
            }
        }
    }
}

func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = Array("RenderWithHook: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: RenderWithHook timeline.json out.h264", status: 2) }
do {
    var bytes: [UInt8] = []
    guard let file = fopen(arguments[1], "rb") else { fail("cannot open \(arguments[1])") }
    var chunk = [UInt8](repeating: 0, count: 65536)
    while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { bytes += chunk[0..<count] }
    fclose(file)
    let directory = arguments[1].contains("/") ? String(arguments[1][..<arguments[1].lastIndex(of: "/")!]) : "."
    let plan = try CompositionPlan(Timeline.parse(bytes))
    var source = try CompositionSource(plan: plan, baseDirectory: directory, passes: 1,
                                       hook: MonochromeWithProgress(totalFrames: plan.frameCount))
    // The handler runs on the encoding thread; the access units are written after each frame, on this one.
    let encoded = Mutex<[[UInt8]]>([])
    let session = try CompressionSession(
        configuration: .realTimeCommunication(width: source.width, height: source.height, averageBitRate: 2_000_000,
                                              pixelFormat: .i420, encoder: .software),
        outputHandler: { output in
            if let frame = output.frame { encoded.withLock { $0.append(frame.bytes) } }
        })
    let writer = try AnnexBFileWriter(path: arguments[2])
    var buffer = source.makeBuffer()
    while let time = try source.nextFrame(into: &buffer) {
        try session.encode(buffer, presentationTime: time)
        for accessUnit in encoded.withLock({ units in defer { units.removeAll() }; return units }) {
            try writer.write(accessUnit)
        }
    }
    try session.completeFrames()
    for accessUnit in encoded.withLock({ $0 }) { try writer.write(accessUnit) }
    try writer.close()
    print("\(plan.frameCount) frames in \(arguments[2])")
} catch {
    fail("\(error)")
}
