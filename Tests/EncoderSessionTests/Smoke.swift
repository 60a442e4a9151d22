import Testing

@Test func EncoderSessionBuilds() { #expect(Bool(true)) }
