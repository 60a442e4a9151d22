/// Bounds on what a timeline may ask for. Each refuses hostile or mistaken input with a clear error before it can
/// cost memory or overflow the planner's arithmetic (which these bounds keep inside 128 bits, see `Fraction`).
public enum TimelineLimits {
    /// Canvas sides: even (4:2:0), 16…8192 (H.264 level 6.2's largest frame side is 8192, Table A-1).
    public static let canvasSides = 16...8192
    /// Output frame rates, frames per second (the CLI's `--fps` range).
    public static let frameRate = Fraction(1, 1000)...Fraction(240)
    /// A timeline is an edit, not an archive: 1000 items.
    public static let maximumItems = 1000
    /// Any time (in, duration) is at most a day.
    public static let maximumSeconds = Fraction(86_400)
    /// Speeds from 1/100 to 100, as MLT's timewarp allows (0.01…20) and a bit beyond.
    public static let speed = Fraction(1, 100)...Fraction(100)
    /// Numerators and denominators written as "N/D", and the significant digits of a decimal: 10^9 keeps every
    /// product the planner forms below 2^127.
    public static let maximumTerm: Int128 = 1_000_000_000
    /// Overlays per timeline: more than any edit stacks (each one open costs a decoder).
    public static let maximumOverlays = 64
    /// Frames of a corner track: up to a day at 240 fps is far below this.
    public static let cornerFrames = 0...Int(Int32.max)
    /// Keys in one corner track: a 10-minute 60 fps track has 36 000; a million bounds what a file may cost.
    public static let maximumCornerKeys = 1_000_000
    /// Corner coordinates in pixels: corners may lie off the canvas, but not absurdly far.
    public static let cornerCoordinates = -65_536.0...65_536.0
    /// Overlay sides when scaled (even): a small sticker may be smaller than the smallest canvas.
    public static let overlaySides = 2...8192
    /// Overlay positions in pixels (the top-left corner may lie off the canvas).
    public static let overlayPositions = -65_536...65_536
    /// A corner-track file is read whole: 64 MiB is about a million CSV keys.
    public static let maximumTrackFileBytes = 64 << 20
}
