import MediaCore
import Synchronization
import Timeline

/// The engine's spare frame buffers, by size. A reader that closes gives its buffers back and the next one takes
/// them, so cuts and loop points allocate nothing once the pool holds what the timeline needs at once (three
/// readers' worth): decoded frames are converted straight into these, never held as decoder frames. Readers are
/// opened on another thread (`ReaderOpener`) and closed on the frame thread, so the spares sit behind a lock, taken
/// only to push or pop one buffer.
final class FramePool: Sendable {
    /// Bounds what a pool keeps of one size: three readers of two decoded and one placed frame, and one reverse
    /// chunk (30 frames at 30 fps), with room to spare.
    static let maximumSparePerSize = 48

    private struct Size: Hashable {
        let width: Int
        let height: Int
    }

    private struct State {
        var spare: [Size: [PixelBuffer]] = [:]
        var allocated = 0
    }

    private let state = Mutex(State())

    /// Buffers allocated because none of the size was spare.
    var allocated: Int { state.withLock { $0.allocated } }

    /// An I420 buffer of this size (contents undefined).
    func take(width: Int, height: Int) -> PixelBuffer {
        let spare = state.withLock { state -> PixelBuffer? in
            if let buffer = state.spare[Size(width: width, height: height)]?.popLast() { return buffer }
            state.allocated += 1
            return nil
        }
        // Allocated outside the lock: a 720p frame is 1.4 MB of zeros.
        return spare ?? PixelBuffer(format: .i420, width: width, height: height)
    }

    func give(_ buffer: PixelBuffer) {
        guard buffer.format == .i420, buffer.width > 2 || buffer.height > 2 else { return }
        let size = Size(width: buffer.width, height: buffer.height)
        state.withLock { state in
            if state.spare[size, default: []].count < Self.maximumSparePerSize { state.spare[size, default: []].append(buffer) }
        }
    }
}
