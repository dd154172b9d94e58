extension PostgresClient {
    /// Runs `body` inside `BEGIN` ... `COMMIT` on one connection; rolls back and rethrows
    /// if `body` throws. Throws if the commit did not happen, so nothing half-commits:
    /// a lost connection means the server rolled back.
    public func withTransaction<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection { connection in
            try await connection.execute("BEGIN")
            let result: T
            do {
                result = try await body(connection)
            } catch {
                // If the rollback fails the connection is broken or still in the
                // transaction; either way it is closed on release, which rolls back.
                _ = try? await connection.execute("ROLLBACK")
                throw error
            }
            // COMMIT of a transaction that had a failed statement "succeeds" as ROLLBACK.
            let outcome = try await connection.outcome("COMMIT")
            guard outcome.commandTag == "COMMIT" else {
                throw PostgresError.query(
                    sqlState: "25P02", message: "transaction was rolled back after a failed statement")
            }
            return result
        }
    }
}
