import Testing
@testable import Redis
@Test func placeholder() { #expect(Bool(true)) }
