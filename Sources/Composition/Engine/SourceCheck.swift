import MediaCore
import MediaIO
import Timeline

/// The files an edit names that the playing timeline does not, opened once on the editing thread before the edit is
/// queued (`TimelineEditor.submit`): an edit with a misspelt or undecodable file is refused there, with its JSON
/// path, and the playing timeline goes on — rather than the stream stopping a pre-roll before the item would show.
/// The playing thread opens them again for real, on the opener's threads (`Engine+Opening`).
enum SourceCheck {
    static func check(_ timeline: Timeline, playing: Timeline, resolve: (String) -> String) throws(CompositionError) {
        let known = Set(files(of: playing).map(\.name))
        let matrix = YCbCrMatrix.forCanvas(height: timeline.canvas.height)
        for file in files(of: timeline) where !known.contains(file.name) {
            let path = resolve(file.name)
            if file.isTrack {
                _ = try CornerTrackFile.read(path, name: file.name, jsonPath: file.jsonPath)
                continue
            }
            do {
                // Demuxer and decoder opened, nothing decoded; the size asked for does not matter.
                _ = try LibAVFileSource(path: path, format: .i420, matrix: matrix) { _, _ in (16, 16) }
            } catch {
                throw .source(file.jsonPath, "", error) // MediaIO's reason names the file
            }
        }
    }

    /// Every file a timeline names, with where: clips and stills, overlay pictures and masks, corner tracks, wipe
    /// map images.
    static func files(of timeline: Timeline) -> [(name: String, jsonPath: String, isTrack: Bool)] {
        var files: [(name: String, jsonPath: String, isTrack: Bool)] = []
        for (index, item) in timeline.items.enumerated() {
            if let source = item.source { files.append((source, "$.items[\(index)].source", false)) }
            if let image = item.transition?.wipe?.shape.imagePath {
                files.append((image, "$.items[\(index)].transition.map", false))
            }
        }
        for (index, overlay) in timeline.overlays.enumerated() {
            files.append((overlay.source, "$.overlays[\(index)].source", false))
            if let mask = overlay.mask { files.append((mask.source, "$.overlays[\(index)].mask.source", false)) }
            if case let .cornerPin(.file(name), _) = overlay.geometry {
                files.append((name, "$.overlays[\(index)].corner_pin", true))
            }
        }
        return files
    }
}
