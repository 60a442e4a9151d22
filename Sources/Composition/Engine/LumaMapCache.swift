#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Timeline

/// The wipe maps the engine has made, by shape: a map is made before its transition shows (a shape's formula, or an
/// image read and scaled once), never per frame, and kept for the next transition with the same map. Holds the few
/// most recently used (a 720p map is 2.3 MB); a map for a transition that starts within the pre-roll is made on
/// another thread (`prepare`), so a timeline with more shapes than that — or a loop that comes back to a shape the
/// cache let go — never makes a map on a frame's time (a star costs ~0.1 s at 720p, three live frames).
final class LumaMapCache {
    static let capacity = 4

    private struct Key: Hashable {
        let shape: Timeline.Transition.Wipe.Shape
        let invert: Bool
        let width: Int
        let height: Int
    }

    private var maps: [(key: Key, map: LumaMap)] = []
    /// Maps being made on another thread.
    private var pending: [Key: PendingMap] = [:]
    /// Maps made so far (tests check that a transition makes its map once).
    private(set) var made = 0
    /// Maps a frame had to make itself: neither kept nor prepared ahead (tests check that pre-roll leaves none).
    private(set) var madeOnFrame = 0

    /// The map of `wipe` on a canvas of `width`×`height`; `path` finds an image map's file, `jsonPath` names the
    /// transition in errors. A prepared map is taken (waited for when its thread has not finished). `onFrame`:
    /// asked for by a frame (counted in `madeOnFrame` when it has to be made), not ahead of the first one.
    func map(for wipe: Timeline.Transition.Wipe, width: Int, height: Int, resolve: (String) -> String,
             jsonPath: String, onFrame: Bool = true) throws(CompositionError) -> LumaMap {
        let key = Key(shape: wipe.shape, invert: wipe.invert, width: width, height: height)
        if let index = maps.firstIndex(where: { $0.key == key }) {
            let entry = maps.remove(at: index)
            maps.append(entry)
            return entry.map
        }
        let map: LumaMap
        do {
            if let prepared = pending.removeValue(forKey: key) {
                map = try prepared.wait().get()
            } else {
                if onFrame { madeOnFrame += 1 }
                map = try makeLumaMap(wipe, width: width, height: height, path: wipe.shape.imagePath.map(resolve)).get()
            }
        } catch {
            throw CompositionError(code: error.code, reason: error.reason, path: jsonPath + ".map",
                                   underlying: error.underlying)
        }
        keep(map, key)
        return map
    }

    /// Starts making the map of `wipe` on another thread unless it is kept or already on its way; `map(for:…)`
    /// takes it when the transition shows.
    func prepare(_ wipe: Timeline.Transition.Wipe, width: Int, height: Int, resolve: (String) -> String) {
        let key = Key(shape: wipe.shape, invert: wipe.invert, width: width, height: height)
        guard pending[key] == nil, !maps.contains(where: { $0.key == key }) else { return }
        let prepared = PendingMap()
        pending[key] = prepared
        let path = wipe.shape.imagePath.map(resolve)
        Task.detached(priority: .utility) {
            prepared.finish(makeLumaMap(wipe, width: width, height: height, path: path))
        }
    }

    /// Whether the map of `wipe` is kept or being made.
    func isReadyOrPending(_ wipe: Timeline.Transition.Wipe, width: Int, height: Int) -> Bool {
        let key = Key(shape: wipe.shape, invert: wipe.invert, width: width, height: height)
        return pending[key] != nil || maps.contains { $0.key == key }
    }

    private func keep(_ map: LumaMap, _ key: Key) {
        made += 1
        if maps.count == Self.capacity { maps.removeFirst() }
        maps.append((key, map))
    }
}

/// A shape's map, or an image's read from `path` (errors without the JSON path; the cache adds it).
private func makeLumaMap(_ wipe: Timeline.Transition.Wipe, width: Int, height: Int,
                         path: String?) -> Result<LumaMap, CompositionError> {
    guard let path else { return .success(LumaMap(shape: wipe.shape, width: width, height: height, invert: wipe.invert)) }
    do {
        return .success(try LumaMap.image(path: path, width: width, height: height, invert: wipe.invert))
    } catch {
        return .failure(error)
    }
}

/// A map being made on another thread: its result once there.
private final class PendingMap: Sendable {
    private let result = Mutex<Result<LumaMap, CompositionError>?>(nil)

    func finish(_ value: Result<LumaMap, CompositionError>) {
        result.withLock { $0 = value }
    }

    /// The result, sleeping 0.2 ms at a time until the other thread has it (it has had the pre-roll to make it, so
    /// this waits only when the machine is too busy for that).
    func wait() -> Result<LumaMap, CompositionError> {
        while true {
            if let value = result.withLock({ $0 }) { return value }
            usleep(200)
        }
    }
}

extension Timeline.Transition.Wipe.Shape {
    /// The file of an image map.
    var imagePath: String? {
        if case let .image(path) = self { return path }
        return nil
    }
}
