import Testing

@Test func MediaIOBuilds() { #expect(Bool(true)) }
