import Testing

@testable import EncoderSession

/// `FrameOptions.maxFrameBytes`: a per-frame byte budget, met by libx264 through a single-frame VBV.
@Suite(.serialized) struct FrameBudgetTests {
    static let width = 640, height = 360, bitRate = 1_000_000
    /// The nominal frame at the target, bytes (1 Mb/s at 30 fps).
    static let nominal = bitRate / 8 / 30
    /// How far over its budget libx264 may land a frame. Measured on these cases: none over, every frame at 86–95 % of
    /// its budget (x264 aims under the buffer, and the buffer is the budget rounded down to a kilobit).
    static let tolerance = 0.05

    /// testsrc2 with temporal grain (what a camera gives: the encoder can always spend more bits on it), read once.
    static let frames: [PixelBuffer] = {
        guard let source = try? FFmpegFrameSource(
            graph: "testsrc2=size=\(width)x\(height):rate=30,noise=alls=14:allf=t+u", width: width, height: height,
            frames: 70)
        else { return [] }
        var frames: [PixelBuffer] = []
        while let frame = source.next() { frames.append(frame) }
        return frames
    }()

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Budget as a multiple of the nominal frame, for `count` frames from frame 45.
        var fraction: Double
        var count: Int
        /// Frame 45 is a forced IDR.
        var idr: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "P frames at the nominal size", fraction: 1, count: 5, idr: false),
        Case(name: "P frames at 3/4", fraction: 0.75, count: 5, idr: false),
        Case(name: "P frames at 1/2", fraction: 0.5, count: 5, idr: false),
        Case(name: "P frames at 1/4", fraction: 0.25, count: 5, idr: false),
        Case(name: "P frames at 1/10", fraction: 0.1, count: 5, idr: false),
        Case(name: "a run of 15 P frames at 1/3", fraction: 1.0 / 3, count: 15, idr: false),
        // The session's steered VBV already holds an IDR to ~1.2 nominal frames here: budgets below that.
        Case(name: "an IDR at the nominal size", fraction: 1, count: 1, idr: true),
        Case(name: "an IDR at 1/2, then P frames at 1/2", fraction: 0.5, count: 4, idr: true),
        Case(name: "an IDR at 1/5", fraction: 0.2, count: 1, idr: true),
    ]

    /// Encodes the 70 frames with libx264 as `rtenc stream` configures it, frames 45… of `budgetCase` with their
    /// budget (nil: none), and returns each frame's output.
    static func encode(_ budgetCase: Case, budgets: Bool) throws -> [EncoderOutput] {
        _ = TestMedia.quiet
        let collector = OutputCollector()
        var configuration = Configuration.realTimeCommunication(
            width: width, height: height, averageBitRate: bitRate, encoder: .software)
        configuration.preset = .veryfast
        configuration.threadCount = 1  // deterministic: the budgeted and the free run see the same encoder
        let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
        for (index, frame) in frames.enumerated() {
            let budgeted = (45..<45 + budgetCase.count).contains(index) && budgets
            let options = FrameOptions(
                forceKeyFrame: budgetCase.idr && index == 45,
                maxFrameBytes: budgeted ? Int(Double(nominal) * budgetCase.fraction) : nil)
            try session.encode(frame, presentationTime: TestMedia.time(index), options: options, context: index)
        }
        session.invalidate()
        return collector.outputs
    }

    /// Each budgeted frame is at most its budget + `tolerance` (x264's row-level VBV aims a little under the buffer
    /// and rounds to kilobits); without budgets the same frames are bigger than the budget, so the cap did the work.
    @Test(arguments: cases) func budgetIsMet(_ budgetCase: Case) throws {
        try #require(Self.frames.count == 70, "ffmpeg's testsrc2 with noise")
        let free = try Self.encode(budgetCase, budgets: false)
        let capped = try Self.encode(budgetCase, budgets: true)
        #expect(capped.count == 70 && free.count == 70)
        let budget = Int(Double(Self.nominal) * budgetCase.fraction)
        var worst = 0.0
        for index in 45..<45 + budgetCase.count {
            let output = capped[index]
            let frame = try #require(output.frame, "frame \(index) was delivered")
            let bytes = frame.accessUnit.bytes.count
            worst = max(worst, Double(bytes) / Double(budget))
            #expect(output.stats.frameBudgetBytes == budget)
            #expect(output.stats.exceededFrameBudget == (bytes > budget))
            #expect(Double(bytes) <= Double(budget) * (1 + Self.tolerance),
                    "frame \(index): \(bytes) B against a budget of \(budget) B")
            if budgetCase.idr && index == 45 { #expect(frame.accessUnit.isKeyframe) }
            if budgetCase.fraction < 1 || budgetCase.idr {
                #expect(free[index].stats.bytes > budget, "frame \(index) unbudgeted: \(free[index].stats.bytes) B")
            }
        }
        print("\(budgetCase.name): budget \(budget) B, largest \(Int((worst * 100).rounded())) % of it; free: "
              + (45..<45 + budgetCase.count).map { "\(free[$0].stats.bytes)" }.joined(separator: " ") + " B; capped: "
              + (45..<45 + budgetCase.count).map { "\(capped[$0].stats.bytes)" }.joined(separator: " ") + " B")
        // Frames before the budget are untouched; frames after it carry no budget.
        #expect((0..<45).allSatisfy { capped[$0].stats.bytes == free[$0].stats.bytes })
        #expect(capped[(45 + budgetCase.count)...].allSatisfy { $0.stats.frameBudgetBytes == nil })
    }

    /// The VBV for one frame: the budget rounded down to a kilobit, max rate = buffer × frame rate; a budget above
    /// the steered buffer leaves the settings alone; under 125 bytes the buffer is x264's smallest (1 kbit).
    @Test(arguments: [
        // (budget bytes, fps, steered settings, expected)
        (4_166, 30.0, RateSettings(averageBitRate: 1_000_000, maxBitRate: 1_500_000, bufferSize: 1_500_000),
         RateSettings(averageBitRate: 1_000_000, maxBitRate: 990_000, bufferSize: 33_000)),
        (1_000, 30.0, RateSettings(averageBitRate: 1_000_000, maxBitRate: 1_000_000, bufferSize: 100_000),
         RateSettings(averageBitRate: 1_000_000, maxBitRate: 240_000, bufferSize: 8_000)),
        (20_000, 30.0, RateSettings(averageBitRate: 1_000_000, maxBitRate: 1_000_000, bufferSize: 100_000),
         RateSettings(averageBitRate: 1_000_000, maxBitRate: 1_000_000, bufferSize: 100_000)),
        (60, 30.0, RateSettings(averageBitRate: 500_000, maxBitRate: 750_000, bufferSize: 750_000),
         RateSettings(averageBitRate: 500_000, maxBitRate: 30_000, bufferSize: 1_000)),
        (10_000, 60.0, RateSettings(averageBitRate: 1_000_000, maxBitRate: 1_500_000, bufferSize: 1_500_000),
         RateSettings(averageBitRate: 1_000_000, maxBitRate: 1_500_000, bufferSize: 80_000)),
    ])
    func cappingFrame(bytes: Int, fps: Double, steered: RateSettings, expected: RateSettings) {
        #expect(steered.cappingFrame(toBytes: bytes, framesPerSecond: fps) == expected)
    }

    /// The capped VBV goes to the encoder for the budgeted frame only; the next frame gets the steered one back.
    @Test func capAppliesToOneFrame() throws {
        let factory = FakeBackendFactory()
        let session = try CompressionSession(
            configuration: smallRealTime(averageBitRate: 300_000), factory: factory, outputHandler: nil)
        for index in 0..<4 {
            let buffer = TestMedia.pattern(width: 160, height: 120, index: index)
            try session.encode(
                buffer, presentationTime: TestMedia.time(index),
                options: FrameOptions(maxFrameBytes: index == 2 ? 500 : nil))
        }
        let rates = factory.log.events.compactMap { if case .setRate(let rate) = $0 { rate } else { nil } }
        #expect(rates.count == 4)
        #expect(rates[2].bufferSize == 4_000 && rates[2].maxBitRate == 120_000)
        #expect(rates[3].bufferSize > 4_000)
    }

    /// A budget of 0 drops the frame before the encoder sees it; a keyframe forced on it goes to the next frame.
    @Test func zeroBudgetDropsAndMovesTheKeyframe() throws {
        let outputs = try runSession(smallRealTime(), count: 6, options: { index in
            FrameOptions(forceKeyFrame: index == 3, maxFrameBytes: index == 3 ? 0 : nil)
        })
        #expect(outputs.map { $0.context as? Int } == Array(0..<6))
        #expect(outputs[3].frame == nil && outputs[3].infoFlags.contains(.frameDropped))
        #expect(outputs[3].stats.dropReason == .frameBudget)
        #expect(outputs[4].frame?.accessUnit.isKeyframe == true)
        #expect(outputs[5].frame?.accessUnit.isKeyframe == false)
    }

    @Test func negativeBudgetIsRefused() throws {
        let session = try CompressionSession(configuration: smallRealTime())
        let buffer = TestMedia.pattern(width: 160, height: 120, index: 0)
        #expect(throws: EncoderSessionError.self) {
            try session.encode(buffer, presentationTime: TestMedia.time(0), options: FrameOptions(maxFrameBytes: -1))
        }
        // The session goes on.
        try session.encode(buffer, presentationTime: TestMedia.time(0))
    }
}
