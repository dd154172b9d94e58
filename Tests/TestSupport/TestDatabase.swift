import Logging
import Postgres

/// Runs `body` with a client of the test run's Postgres (`DATABASE_URL`, which tests need and
/// fail without, or `url`), shut down afterwards whatever happens.
public func withTestDatabase<T: Sendable>(
    poolSize: Int = 2, acquireTimeout: Duration = .seconds(60), url: String? = nil, _ body: (PostgresClient) async throws -> T
) async throws -> T {
    var logger = Logger(label: "test-database")
    logger.logLevel = .warning
    var configuration = PostgresConfiguration(url: try url ?? requiredEnvironment("DATABASE_URL"), poolSize: poolSize)
    configuration.acquireTimeout = acquireTimeout
    let client = PostgresClient(configuration: configuration, logger: logger)
    do {
        let result = try await body(client)
        await client.shutdown()
        return result
    } catch {
        await client.shutdown()
        throw error
    }
}
