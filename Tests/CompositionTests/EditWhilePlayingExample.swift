import Composition
import MediaCore

/// Plays a timeline live and edits it from another task while it plays: `editor.submit` plans the edit there (and
/// throws what cannot be planned); the playing loop takes it at its next frame, reopening only the readers the edit
/// touched, timestamps continuing.
func playWhileEditing(_ timeline: Timeline, media: String, frames: Int,
                      send: (PixelBuffer, MediaTime) throws -> Void) async throws {
    var source = try CompositionSource(plan: CompositionPlan(timeline), baseDirectory: media, live: true)
    let editor = source.makeEditor()
    // 1 s in: the second item becomes another clip, and dissolves into the third.
    let editing = Task.detached {
        try await Task.sleep(for: .seconds(1))
        var edited = timeline
        edited.items[1].content = .clip(source: "other.mp4", in: .zero)
        edited.items[1].transition = .init(kind: .dissolve, duration: Fraction(1, 2))
        try editor.submit(edited)
    }
    var buffer = source.makeBuffer()
    for _ in 0..<frames {
        guard let time = try source.nextFrame(into: &buffer) else { break }
        try send(buffer, time)
    }
    try await editing.value
}
