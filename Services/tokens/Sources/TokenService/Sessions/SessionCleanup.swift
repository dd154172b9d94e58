import TokensAPI
import FoundationEssentials
import Logging
import Postgres
import ServiceKit
import ServiceLifecycle

/// Deletes what no token can need any more, in bounded batches: sessions that ended (expired
/// or revoked) longer than an access token lifetime ago, with their refresh tokens in the same
/// statement (no foreign key deletes them since migration 3), sealed successors past the grace
/// window (plus a minute for clock skew between replicas), and per-user not-befores older than
/// any access token.
struct SessionCleanup: Service {
    let postgres: PostgresClient
    let clock: TokenClock
    let interval: Duration
    let batchSize: Int
    let accessTokenTTL: TimeInterval
    let reuseGrace: TimeInterval
    let logger: Logger
    /// Batches per statement per run, so one run never holds the database for long.
    var maximumBatches = 20

    func run() async throws {
        await everyInterval(self.interval, logger: self.logger, failure: "Session cleanup failed") {
            try await self.runOnce()
        }
    }

    /// What one run removed.
    struct Outcome: Sendable, Equatable {
        var sessions = 0
        var sealedSuccessors = 0
        var userRevocations = 0
    }

    @discardableResult
    func runOnce() async throws -> Outcome {
        let now = self.clock.now()
        let ended = now.addingTimeInterval(-self.accessTokenTTL)
        var outcome = Outcome()
        outcome.sessions = try await self.inBatches(
            """
            WITH ended AS (
                SELECT id FROM tokens.sessions WHERE expires_at < $1
                UNION
                SELECT id FROM tokens.sessions WHERE revoked_at < $1
                LIMIT $2
            ), their_tokens AS (
                DELETE FROM tokens.refresh_tokens WHERE session_id IN (SELECT id FROM ended)
            )
            DELETE FROM tokens.sessions WHERE id IN (SELECT id FROM ended)
            """, [.timestamp(ended)])
        outcome.sealedSuccessors = try await self.inBatches(
            """
            UPDATE tokens.refresh_tokens SET successor_sealed = NULL WHERE hash IN (
                SELECT hash FROM tokens.refresh_tokens
                WHERE successor_sealed IS NOT NULL AND rotated_at < $1
                LIMIT $2)
            """, [.timestamp(now.addingTimeInterval(-(self.reuseGrace + RevocationKeys.clockSkew)))])
        outcome.userRevocations = try await self.inBatches(
            """
            DELETE FROM tokens.user_revocations WHERE user_id IN (
                SELECT user_id FROM tokens.user_revocations WHERE not_before < $1 LIMIT $2)
            """, [.timestamp(ended)])
        if outcome != Outcome() {
            self.logger.info(
                "Cleaned up expired sessions",
                metadata: [
                    "tokens.sessions": "\(outcome.sessions)", "tokens.sealed": "\(outcome.sealedSuccessors)",
                    "tokens.user_revocations": "\(outcome.userRevocations)",
                ])
        }
        return outcome
    }

    /// Runs `sql` (whose last parameter is the batch size) until a batch comes back short.
    private func inBatches(_ sql: String, _ bindings: [PostgresValue]) async throws -> Int {
        var total = 0
        for _ in 0..<self.maximumBatches {
            let count = try await self.postgres.execute(sql, bindings + [.int(self.batchSize)])
            total += count
            if count < self.batchSize { break }
        }
        return total
    }
}
