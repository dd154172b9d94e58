import Testing

/// Replaced by the service's tests.
@Test func placeholder() { #expect(Bool(true)) }
