import Foundation
import MediaIO
import TestSupport
@testable import Composition
@testable import Timeline

/// Test media made with ffmpeg's lavfi sources, and readers for what the engine and ffmpeg produce.
enum CompositionMedia {
    /// Width and height of the barcode clips: 8 bars of 8 pixels, bar b white when bit b of the frame number is set.
    static let barcodeSize = (width: 64, height: 16)

    /// A lossless H.264 MP4 whose frame n shows n as a barcode (ffmpeg's geq reads the frame number N).
    /// Scene-cut detection is off, so `gop` is the keyframe interval exactly.
    static func barcodeClip(_ path: String, rate: Int, frames: Int, gop: Int = 15) throws {
        let bars = "if(mod(floor(N/pow(2\\,floor(X/8)))\\,2)\\,235\\,16)"
        _ = try Tool.output("ffmpeg", [
            "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
            "-i", "nullsrc=size=\(barcodeSize.width)x\(barcodeSize.height):rate=\(rate),format=yuv420p,geq=lum='\(bars)':cb=128:cr=128",
            "-frames:v", "\(frames)", "-c:v", "libx264", "-qp", "0", "-g", "\(gop)", "-sc_threshold", "0", path,
        ], timeout: 60)
    }

    /// The frame number a barcode luma plane shows (row 8, the middle of each bar).
    static func barcode(luma: ArraySlice<UInt8>, stride: Int) -> Int {
        var value = 0
        for bit in 0..<8 where luma[luma.startIndex + 8 * stride + bit * 8 + 4] > 128 { value |= 1 << bit }
        return value
    }

    /// Every frame of a timeline rendered by the engine.
    static func render(_ timeline: Timeline, baseDirectory: String) throws -> [PixelBuffer] {
        var source = try CompositionSource(plan: CompositionPlan(timeline), baseDirectory: baseDirectory)
        var frames: [PixelBuffer] = []
        var buffer = source.makeBuffer()
        while try source.nextFrame(into: &buffer) != nil { frames.append(buffer) }
        return frames
    }

    /// The error playing `timeline` fails with (nil when it plays through). Readers open on their own threads a
    /// pre-roll ahead, so a file that does not open stops the source at the first frame after its open failed (the
    /// first frame's own readers are opened by the initialiser).
    static func firstFrameError(_ timeline: Timeline, baseDirectory: String? = nil) throws -> CompositionError? {
        let plan = try CompositionPlan(timeline)
        do {
            var source = try CompositionSource(plan: plan, baseDirectory: baseDirectory)
            var buffer = source.makeBuffer()
            while try source.nextFrame(into: &buffer) != nil {}
            return nil
        } catch {
            return error
        }
    }

    /// ffmpeg's frames for a filtergraph over `inputs`, as packed yuv420p frames of `width`×`height`.
    static func ffmpegFrames(inputs: [String], graph: String, width: Int, height: Int) throws -> [[UInt8]] {
        var arguments = ["-nostdin", "-loglevel", "error"]
        for input in inputs { arguments += ["-i", input] }
        arguments += ["-filter_complex", graph, "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"]
        let data = try Tool.output("ffmpeg", arguments, timeout: 60)
        let frameSize = width * height * 3 / 2
        return stride(from: 0, to: data.count - frameSize + 1, by: frameSize).map {
            Array(data[data.startIndex + $0..<data.startIndex + $0 + frameSize])
        }
    }

    /// PSNR of two packed frames of equal size, in dB (infinity when equal).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count)
        var squared = 0.0
        for index in a.indices {
            let difference = Double(Int(a[index]) - Int(b[index]))
            squared += difference * difference
        }
        guard squared > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (squared / Double(a.count)))
    }
}

extension PixelBuffer {
    /// Planes without stride padding, in order: ffmpeg's `-f rawvideo -pix_fmt yuv420p` layout.
    var packed: [UInt8] {
        var result: [UInt8] = []
        for index in 0..<planes.count {
            let stride = planes[index].bytesPerRow, rowBytes = rowBytes(ofPlane: index)
            for row in 0..<rows(ofPlane: index) {
                result += planes[index].bytes[(row * stride)..<(row * stride + rowBytes)]
            }
        }
        return result
    }

    var barcode: Int { CompositionMedia.barcode(luma: planes[0].bytes[...], stride: planes[0].bytesPerRow) }
}
