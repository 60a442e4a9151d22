import MediaIO

/// Glass-to-glass latency read from decoded pictures (`rtenc receive --barcode-latency`): each picture's
/// `ClockBarcode` is the wall time the sender drew it; now minus that is capture → decoded picture, on one clock.
final class BarcodeLatencies {
    struct Summary: Encodable, Equatable {
        /// Pictures whose barcode was read; the others (no barcode, damaged) are counted apart.
        var frames: Int
        var unreadable: Int
        var p50: Int64?
        var p90: Int64?
        var max: Int64?
    }

    private var samples: [Int64] = []
    private var unreadable = 0
    private let clock: () -> Int64

    init(clock: @escaping () -> Int64 = { systemWallClock() }) { self.clock = clock }

    /// `AccessUnitDecoder.onLuma`.
    func read(luma: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int) {
        guard let code = ClockBarcode.read(luma: luma, width: width, height: height, bytesPerRow: bytesPerRow) else {
            unreadable += 1
            return
        }
        let now = clock()
        samples.append(now - ClockBarcode.unwrap(code, near: now))
    }

    /// Nearest-rank percentiles of the latencies, milliseconds.
    func summary() -> Summary {
        let sorted = samples.sorted()
        func rank(_ p: Double) -> Int64? {
            sorted.isEmpty ? nil : sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
        }
        return Summary(frames: sorted.count, unreadable: unreadable, p50: rank(0.5), p90: rank(0.9), max: sorted.last)
    }
}
