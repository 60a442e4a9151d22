import MediaIO
import Timeline

/// A file's display matrix composed with an item's own flip and rotation, so `Placement` turns each picture once.
///
/// The picture is shown as ffmpeg's autorotate shows it (turned upright by the file's quarter turn d), then the item's
/// flip F, then its rotation r: R(r) · F · R(d). A mirror turns a rotation round (F · R(d) = R(−d) · F for a flip of
/// one axis; both axes are a half turn, which commutes), so that is R(r ∓ d) · F: Placement's flip, then one rotation.
extension Timeline.Rotation {
    func composed(afterDisplayTurn display: Timeline.Rotation, flip: Timeline.Flip) -> Timeline.Rotation {
        let mirrored = flip == .horizontal || flip == .vertical
        let degrees = rawValue + (mirrored ? 360 - display.rawValue : display.rawValue)
        return Timeline.Rotation(rawValue: degrees % 360)!
    }

    /// The quarter turn a file's display matrix asks for; `.none` without a matrix, nil for an angle that is not a
    /// quarter turn.
    init?(displayMatrix: DisplayMatrix?) {
        guard let matrix = displayMatrix else {
            self = .none
            return
        }
        guard let turn = matrix.quarterTurn else { return nil }
        self.init(rawValue: turn)
    }
}
