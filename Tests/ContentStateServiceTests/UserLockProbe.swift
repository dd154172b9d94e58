import Foundation
import Postgres
import TestSupport
import Testing

/// A user's write lock held from a test's own transaction, the way a writer (another replica,
/// an account's deletion) holds it, and the backends that wait for it.
extension PostgresConnection {
    /// Takes `user`'s lock (their `user_versions` row) until this transaction ends.
    func holdWriteLock(of user: UUID) async throws {
        _ = try await self.query("SELECT version FROM content.user_versions WHERE user_id = $1 FOR UPDATE", [.uuid(user)])
    }

    /// Backends waiting for this connection's transaction, directly or behind another waiter
    /// (the first waits for the transaction, the next ones for its tuple lock). From `pg_locks`,
    /// which is read afresh each time (`pg_stat_activity` keeps a transaction's first view).
    func backendsWaitingForThisTransaction() async throws -> Int {
        try await self.query(
            """
            WITH RECURSIVE blocked(pid) AS (
                SELECT l.pid FROM pg_locks l WHERE NOT l.granted AND pg_backend_pid() = ANY(pg_blocking_pids(l.pid))
                UNION
                SELECT l.pid FROM pg_locks l JOIN blocked b ON b.pid = ANY(pg_blocking_pids(l.pid)) WHERE NOT l.granted
            )
            SELECT count(*)::int AS waiting FROM blocked
            """)[0].decode("waiting", as: Int.self)
    }

    /// Returns once `count` backends (at least) wait for this transaction; fails the test after
    /// `timeout` instead of hanging it.
    func untilABackendWaits(
        count: Int = 1, timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await waitUntil("\(count) backend(s) wait for the lock", timeout: timeout, sourceLocation: sourceLocation) {
            try await self.backendsWaitingForThisTransaction() >= count
        }
    }
}
