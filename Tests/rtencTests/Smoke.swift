import Testing

@Test func rtencBuilds() { #expect(Bool(true)) }
