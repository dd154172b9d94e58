import Postgres

extension PostgresClient {
    /// Runs `body` in a transaction that is rolled back whatever `body` does, and returns what it
    /// returned: for tests that build tables, rows or statistics to look at and must leave
    /// nothing behind in the shared test database.
    public func inRolledBackTransaction<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await self.withTransaction(isolation: isolation) { connection -> T in
                throw RolledBack(result: try await body(connection))
            }
        } catch let rolledBack as RolledBack<T> {
            return rolledBack.result
        }
    }
}

/// Thrown out of the transaction to roll it back, carrying the body's result.
private struct RolledBack<T: Sendable>: Error {
    let result: T
}
