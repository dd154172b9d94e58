import Postgres
import Testing

/// A Postgres row lock held in an open transaction, so that a service's statement on that row
/// waits: a request kept in flight for exactly as long as a test needs (draining on SIGTERM,
/// say), with no sleep and no test-only hook in the service.
public struct HeldRowLock: Sendable {
    private let observer: PostgresClient
    private let holderPID: Int

    /// Opens a transaction on the test run's `DATABASE_URL`, runs `lockSQL` (e.g. a
    /// `SELECT ... FOR UPDATE`) in it, then `body`; the lock goes with the transaction's end.
    public static func with<T: Sendable>(
        _ lockSQL: String, _ bindings: [PostgresValue], _ body: (HeldRowLock) async throws -> T
    ) async throws -> T {
        try await withTestDatabase { client in
            try await client.withTransaction { connection in
                let rows = try await connection.query(lockSQL, bindings)
                guard !rows.isEmpty else { throw LockedNothing(sql: lockSQL) }
                let pid = try await connection.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int.self)
                return try await body(HeldRowLock(observer: client, holderPID: pid))
            }
        }
    }

    /// Waits until some other session waits for this lock: the service's request is in flight.
    public func waitUntilSomeoneWaits(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await waitUntil("a statement waits for the held row lock", sourceLocation: sourceLocation) {
            let rows = try await self.observer.query(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))", [.int(self.holderPID)])
            return try rows[0].decode("n", as: Int.self) > 0
        }
    }

    /// Ends the statements waiting for this lock as a Postgres operator would: cancelled
    /// (SQLSTATE 57014) or, with `terminate`, their server process ended (the connection breaks).
    public func stopWaiters(terminate: Bool = false) async throws {
        let function = terminate ? "pg_terminate_backend" : "pg_cancel_backend"
        let rows = try await self.observer.query(
            "SELECT count(*) FILTER (WHERE \(function)(pid)) AS n FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))",
            [.int(self.holderPID)])
        guard try rows[0].decode("n", as: Int.self) > 0 else { throw NoWaiter() }
    }

    struct NoWaiter: Error {}

    /// The lock statement matched no row, so it holds nothing.
    public struct LockedNothing: Error, CustomStringConvertible {
        public var sql: String
        public var description: String { "the lock statement matched no row: \(sql)" }
    }
}
