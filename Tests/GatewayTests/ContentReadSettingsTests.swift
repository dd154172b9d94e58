import Gateway
import ServiceKit
import Testing

/// `CONTENT_READ_DATABASE_URL` and its companions: off unless set, a URL that is not
/// Postgres' refused by name, the pool size and `MAX_BATCH` bounded as content-state's.
@Suite struct ContentReadSettingsTests {
    static func configuration(_ values: [String: String]) throws -> GatewayConfiguration {
        try GatewayConfiguration(EnvironmentReader(values.merging(["ENVIRONMENT": "development"]) { old, _ in old }))
    }

    @Test func offUnlessSet() throws {
        #expect(try Self.configuration([:]).contentReads == nil)
        #expect(try Self.configuration(["CONTENT_READ_DATABASE_URL": " "]).contentReads == nil)
        // Its companions alone do not turn it on.
        #expect(try Self.configuration(["CONTENT_READ_POOL_SIZE": "4", "MAX_BATCH": "100"]).contentReads == nil)
    }

    @Test func readsItsSettings() throws {
        let url = "postgres://latchkey_gateway@db:5432/latchkey?sslmode=verify-full"
        let defaults = try #require(try Self.configuration(["CONTENT_READ_DATABASE_URL": url]).contentReads)
        #expect(defaults.databaseURL == url)
        #expect(defaults.poolSize == 8)
        #expect(defaults.maxBatch == 500)
        let set = try #require(
            try Self.configuration(["CONTENT_READ_DATABASE_URL": url, "CONTENT_READ_POOL_SIZE": "3", "MAX_BATCH": "2000"]).contentReads)
        #expect(set.poolSize == 3)
        #expect(set.maxBatch == 2000)
    }

    @Test func refusesWhatItCannotUseByName() {
        #expect(throws: ConfigurationError.invalid("CONTENT_READ_DATABASE_URL", "a postgres:// URL")) {
            try Self.configuration(["CONTENT_READ_DATABASE_URL": "mysql://db/latchkey"])
        }
        #expect(throws: ConfigurationError.invalid("CONTENT_READ_POOL_SIZE", "an integer in 1...200")) {
            try Self.configuration(["CONTENT_READ_DATABASE_URL": "postgres://db/latchkey", "CONTENT_READ_POOL_SIZE": "0"])
        }
        #expect(throws: ConfigurationError.invalid("MAX_BATCH", "an integer in 1...2000")) {
            try Self.configuration(["CONTENT_READ_DATABASE_URL": "postgres://db/latchkey", "MAX_BATCH": "2001"])
        }
    }
}
