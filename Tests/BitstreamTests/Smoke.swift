import Testing

@Test func BitstreamBuilds() { #expect(Bool(true)) }
