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
}
