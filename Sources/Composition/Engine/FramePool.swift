import MediaCore
import Timeline

/// The engine's spare frame buffers, by size. A reader that closes gives its buffers back and the next one takes
/// them, so cuts and loop points allocate nothing once the pool holds what the timeline needs at once (three
/// readers' worth): decoded frames are converted straight into these, never held as decoder frames.
final class FramePool {
    /// Bounds what a pool keeps of one size: three readers of two decoded and one placed frame, and one reverse
    /// chunk (30 frames at 30 fps), with room to spare.
    static let maximumSparePerSize = 48

    private struct Size: Hashable {
        let width: Int
        let height: Int
    }

    private var spare: [Size: [PixelBuffer]] = [:]
    /// Buffers allocated because none of the size was spare.
    private(set) var allocated = 0

    /// An I420 buffer of this size (contents undefined).
    func take(width: Int, height: Int) -> PixelBuffer {
        if let buffer = spare[Size(width: width, height: height)]?.popLast() { return buffer }
        allocated += 1
        return PixelBuffer(format: .i420, width: width, height: height)
    }

    func give(_ buffer: PixelBuffer) {
        guard buffer.format == .i420, buffer.width > 2 || buffer.height > 2 else { return }
        let size = Size(width: buffer.width, height: buffer.height)
        if spare[size, default: []].count < Self.maximumSparePerSize { spare[size, default: []].append(buffer) }
    }
}
