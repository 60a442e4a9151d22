import MediaIO
import Timeline

/// Whether a reverse clip can be played backwards in real time. A reader shows a reverse clip one chunk
/// (`ItemReader.reverseChunk`, 1 s of source) at a time, each decoded forward from the keyframe at or before the
/// chunk's start: with keyframes `gop` seconds apart that is up to `gop + chunk` seconds of frames for `chunk` seconds
/// shown. Live, a chunk must be decoded within the pre-roll (`CompositionPlan.preroll`, 1 s) while the encoder keeps
/// its share of the machine, so the decode work may be at most `maximumDecodeFactor` times what forward playback of
/// the same frames costs: keyframes at most one chunk apart. Measured here (issue 14's design note): GOP 30 at 30 fps
/// decodes backwards at ≈ 1× forward cost; one 300-frame GOP at 4.7×, and a long clip in one GOP grows without
/// bound (every chunk decodes from the one keyframe). Offline (`rtenc render`) any GOP is rendered, slowly.
public enum LiveReverseBudget {
    /// Decoded frames per frame shown that live reverse playback allows: one GOP plus the chunk, with a GOP no
    /// longer than the chunk.
    public static let maximumDecodeFactor = 2

    /// What playing a clip backwards costs, from its longest GOP (seconds) and its frame rate.
    public struct Estimate: Sendable, Hashable {
        public let gop: Fraction
        public let frameRate: Fraction
        /// Frames decoded, at worst, to show one chunk: the GOP before it and the chunk itself.
        public var framesPerChunk: Int { Int(clamping: ((gop + ItemReader.reverseChunk) * frameRate).ceiling) }
        /// Frames decoded per frame shown, at worst.
        public var decodeFactor: Fraction { (gop + ItemReader.reverseChunk) / ItemReader.reverseChunk }
        public var fitsLive: Bool { decodeFactor <= Fraction(Int128(maximumDecodeFactor)) }
        /// A keyframe interval that fits, in frames: half a chunk (`-g 15` at 30 fps).
        public var suggestedGOPFrames: Int {
            max(1, Int(clamping: (ItemReader.reverseChunk * frameRate / Fraction(2)).floor))
        }

        public init(gop: Fraction, frameRate: Fraction) {
            self.gop = gop
            self.frameRate = frameRate
        }
    }

    /// Scans every reverse clip of `plan` (its keyframes, from the packets: nothing is decoded) and refuses the first
    /// whose GOP does not fit with `.liveBudget`, naming the clip, its GOP and what to do instead.
    public static func check(_ plan: CompositionPlan, resolve: (String) -> String) throws(CompositionError) {
        for (index, item) in plan.timeline.items.enumerated() where item.reverse {
            guard case let .clip(source, start) = item.content else { continue }
            let path = resolve(source)
            let keyframes: KeyframeIndex
            do {
                keyframes = try KeyframeIndex(path: path, until: (start + item.duration).mediaTime())
            } catch {
                throw .source("$.items[\(index)].source", "", error)
            }
            let gop = Fraction(keyframes.longestGOP(overlapping: start.mediaTime(), (start + item.duration).mediaTime()))
            let end = Fraction(keyframes.end)
            let rate = end > .zero && keyframes.frames > 0 ? Fraction(Int128(keyframes.frames)) / end : Fraction(30)
            let estimate = Estimate(gop: gop, frameRate: rate)
            guard !estimate.fitsLive else { continue }
            let gopFrames = Int(clamping: (gop * rate + Fraction(1, 2)).floor)
            let factor = estimate.decodeFactor.doubleValue
            throw CompositionError(
                code: .liveBudget,
                reason: "\(source) plays in reverse, but its keyframes are up to \(CompositionPlan.seconds(gop)) s "
                    + "apart (GOP \(gopFrames) frames): backwards, each 1 s chunk decodes up to "
                    + "\(estimate.framesPerChunk) frames (\(factor.formatted1)× forward), more than live playback "
                    + "affords (\(maximumDecodeFactor)×, within the 1 s pre-roll). Re-encode it with shorter GOPs "
                    + "(ffmpeg -i \(source) -c:v libx264 -g \(estimate.suggestedGOPFrames) …), or render the timeline "
                    + "offline (rtenc render) and stream the result",
                path: "$.items[\(index)]")
        }
    }
}

extension Fraction {
    /// A media time as an exact fraction of a second.
    init(_ time: MediaTime) {
        self.init(Int128(time.value), Int128(time.timescale))
    }
}

extension Double {
    /// One decimal, for messages.
    fileprivate var formatted1: String {
        let tenths = (self * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
    }
}
