import Testing

@Test func RTPOutBuilds() { #expect(Bool(true)) }
