import Testing
@testable import Postgres
@Test func placeholder() { #expect(Bool(true)) }
