/// Decides, packet by packet, whether the path loses it: independent (Bernoulli) loss or Gilbert-Elliott bursts.
///
/// Gilbert-Elliott here is the "simple Gilbert" form: a two-state Markov chain stepped once per packet, losing every
/// packet in the bad state and none in the good one. With p = P(good → bad) and r = P(bad → good), bursts last
/// 1/r packets on average and the long-run loss is p / (p + r); so for a loss rate L and mean burst b,
/// r = 1/b and p = L·r / (1 − L).
struct LossModel: Sendable {
    private enum Kind: Sendable {
        case none
        case random(Double)
        case gilbertElliott(goodToBad: Double, badToGood: Double)
    }

    private let kind: Kind
    private(set) var inBadState = false

    init(_ loss: ImpairmentProfile.Loss) {
        switch loss {
        case .none: kind = .none
        case .random(let rate): kind = .random(rate)
        case .burst(let rate, let meanBurstLength):
            let badToGood = 1 / meanBurstLength
            kind = .gilbertElliott(goodToBad: rate * badToGood / (1 - rate), badToGood: badToGood)
        }
    }

    mutating func losesNext(using generator: inout SeededGenerator) -> Bool {
        switch kind {
        case .none:
            return false
        case .random(let rate):
            return generator.chance(rate)
        case .gilbertElliott(let goodToBad, let badToGood):
            inBadState = inBadState ? !generator.chance(badToGood) : generator.chance(goodToBad)
            return inBadState
        }
    }
}
