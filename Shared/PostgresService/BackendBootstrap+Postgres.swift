import Logging
import Postgres
import ServiceKit

extension BackendBootstrap {
    /// Opens the pool from `DATABASE_URL` (`DATABASE_POOL_SIZE`, default 8) and applies the
    /// service's migrations, waiting up to `startupTimeout` for Postgres to accept connections.
    public static func postgres(
        _ env: EnvironmentReader, schema: String, migrations: [Migration], logger: Logger,
        startupTimeout: Duration = .seconds(30)
    ) async throws -> PostgresClient {
        guard let url = try env.postgresURL("DATABASE_URL") else { throw ConfigurationError.missing("DATABASE_URL") }
        let poolSize = try env.int("DATABASE_POOL_SIZE", default: 8, range: 1...200)
        let client = PostgresClient(configuration: PostgresConfiguration(url: url, poolSize: poolSize), logger: logger)
        try await retryingAtStart("Postgres", timeout: startupTimeout, logger: logger) {
            try await Migrator.migrate(client, schema: schema, migrations: migrations, logger: logger)
        }
        return client
    }
}

extension EnvironmentReader {
    /// The libpq URI in `name` (`postgres://` or `postgresql://`); nil when it is not set.
    public func postgresURL(_ name: String) throws -> String? {
        guard let url = self.optional(name) else { return nil }
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            throw ConfigurationError.invalid(name, "a postgres:// URL")
        }
        return url
    }
}

extension HealthCheck {
    /// `/readyz` while the pool reaches Postgres.
    public static func postgres(_ client: PostgresClient) -> HealthCheck {
        HealthCheck("postgres") { try await client.ping() }
    }
}
