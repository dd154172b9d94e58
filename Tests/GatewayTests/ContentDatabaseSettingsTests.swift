import Gateway
import ServiceKit
import Testing

/// `CONTENT_DATABASE_URL` and its companions: off unless set, a URL that is not Postgres'
/// refused by name, the pool size and content-state's rules (`MAX_BATCH`,
/// `MAX_FAVORITES_PER_USER`) bounded as content-state bounds them, and the read-only settings
/// of the release before refused by name.
@Suite struct ContentDatabaseSettingsTests {
    static func configuration(_ values: [String: String]) throws -> GatewayConfiguration {
        try GatewayConfiguration(EnvironmentReader(values.merging(["ENVIRONMENT": "development"]) { old, _ in old }))
    }

    @Test func offUnlessSet() throws {
        #expect(try Self.configuration([:]).content == nil)
        #expect(try Self.configuration(["CONTENT_DATABASE_URL": " "]).content == nil)
        // Its companions alone do not turn it on.
        #expect(try Self.configuration(["CONTENT_POOL_SIZE": "4", "MAX_BATCH": "100", "MAX_FAVORITES_PER_USER": "5"]).content == nil)
    }

    @Test func readsItsSettings() throws {
        let url = "postgres://latchkey_gateway@db:5432/latchkey?sslmode=verify-full"
        let defaults = try #require(try Self.configuration(["CONTENT_DATABASE_URL": url]).content)
        #expect(defaults.databaseURL == url)
        #expect(defaults.poolSize == 8)
        #expect(defaults.rules.maxBatch == 500)
        #expect(defaults.rules.maxFavoritesPerUser == 10_000)
        let set = try #require(
            try Self.configuration([
                "CONTENT_DATABASE_URL": url, "CONTENT_POOL_SIZE": "3", "MAX_BATCH": "2000", "MAX_FAVORITES_PER_USER": "25",
            ]).content)
        #expect(set.poolSize == 3)
        #expect(set.rules.maxBatch == 2000)
        #expect(set.rules.maxFavoritesPerUser == 25)
    }

    @Test func refusesWhatItCannotUseByName() {
        #expect(throws: ConfigurationError.invalid("CONTENT_DATABASE_URL", "a postgres:// URL")) {
            try Self.configuration(["CONTENT_DATABASE_URL": "mysql://db/latchkey"])
        }
        #expect(throws: ConfigurationError.invalid("CONTENT_POOL_SIZE", "an integer in 1...200")) {
            try Self.configuration(["CONTENT_DATABASE_URL": "postgres://db/latchkey", "CONTENT_POOL_SIZE": "0"])
        }
        #expect(throws: ConfigurationError.invalid("MAX_BATCH", "an integer in 1...2000")) {
            try Self.configuration(["CONTENT_DATABASE_URL": "postgres://db/latchkey", "MAX_BATCH": "2001"])
        }
        #expect(throws: ConfigurationError.invalid("MAX_FAVORITES_PER_USER", "an integer in 1...1000000")) {
            try Self.configuration(["CONTENT_DATABASE_URL": "postgres://db/latchkey", "MAX_FAVORITES_PER_USER": "0"])
        }
    }

    /// The read-only role of the release before cannot write: a deployment that still names
    /// it is stopped with the new name, not left to fail its writes.
    @Test func theReadOnlySettingsOfTheReleaseBeforeAreRefusedWithTheirNewNames() {
        let expected = "unset: it is now CONTENT_DATABASE_URL, whose role also inserts and updates (docs/deploy.md)"
        #expect(throws: ConfigurationError.invalid("CONTENT_READ_DATABASE_URL", expected)) {
            try Self.configuration(["CONTENT_READ_DATABASE_URL": "postgres://latchkey_gateway@db/latchkey"])
        }
        #expect(throws: ConfigurationError.invalid("CONTENT_READ_POOL_SIZE", expected.replacingOccurrences(of: "DATABASE_URL", with: "POOL_SIZE"))) {
            try Self.configuration(["CONTENT_DATABASE_URL": "postgres://db/latchkey", "CONTENT_READ_POOL_SIZE": "4"])
        }
    }
}
