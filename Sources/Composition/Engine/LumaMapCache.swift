import Timeline

/// The wipe maps the engine has made, by shape: a map is made when its transition first shows (a shape's formula,
/// or an image read and scaled once), never per frame, and kept for the next transition with the same map — a
/// looping timeline makes each of its maps once. Holds the few most recently used (a 720p map is 2.3 MB).
final class LumaMapCache {
    static let capacity = 4

    private struct Key: Hashable {
        let shape: Timeline.Transition.Wipe.Shape
        let invert: Bool
    }

    private var maps: [(key: Key, map: LumaMap)] = []
    /// Maps made so far (tests check that a transition makes its map once).
    private(set) var made = 0

    /// The map of `wipe` on a canvas of `width`×`height`; `path` finds an image map's file, `jsonPath` names the
    /// transition in errors.
    func map(for wipe: Timeline.Transition.Wipe, width: Int, height: Int, resolve: (String) -> String,
             jsonPath: String) throws(CompositionError) -> LumaMap {
        let key = Key(shape: wipe.shape, invert: wipe.invert)
        if let index = maps.firstIndex(where: { $0.key == key }) {
            let entry = maps.remove(at: index)
            maps.append(entry)
            return entry.map
        }
        let map: LumaMap
        if case let .image(path) = wipe.shape {
            do {
                map = try LumaMap.image(path: resolve(path), width: width, height: height, invert: wipe.invert)
            } catch {
                throw CompositionError(code: error.code, reason: error.reason, path: jsonPath + ".map",
                                       underlying: error.underlying)
            }
        } else {
            map = LumaMap(shape: wipe.shape, width: width, height: height, invert: wipe.invert)
        }
        made += 1
        if maps.count == Self.capacity { maps.removeFirst() }
        maps.append((key, map))
        return map
    }
}
