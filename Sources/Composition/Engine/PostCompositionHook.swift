import MediaCore
import Timeline

/// An embedder's processing of every composed frame, after the sequence, the transitions and the overlays and before
/// the frame leaves the `CompositionSource` (to the encoder, when streaming or rendering): seed 003's global
/// "passing-through" effect, as one protocol instead of an effect zoo.
///
/// `process` is called exactly once per output frame, in output order, on the caller's thread, with the frame in
/// the canvas's I420 layout (BT.709 limited range from 720 lines up, BT.601 below) at the canvas size. Change its
/// samples in place: the buffer is the one the source's caller lends to `nextFrame(into:)`, so writing into its
/// planes allocates nothing. Replacing the buffer by one of another format or size is a programming error the
/// encoder reports. A thrown error ends the composition with that error.
public protocol PostCompositionHook {
    /// - Parameters:
    ///   - frame: the composed frame, to change in place.
    ///   - index: the output frame's index from the start (0, 1, 2…; across loop passes it keeps counting).
    ///   - time: the output frame's presentation time, index / frame rate.
    mutating func process(_ frame: inout PixelBuffer, index: Int, time: MediaTime) throws(CompositionError)
}
