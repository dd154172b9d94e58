import TokensAPI
import FoundationEssentials
import Logging
import Postgres
import ServiceKit
import ServiceLifecycle

/// Keeps the Redis copy of revocations complete: every `interval` it checks the marker and,
/// when it is missing (Redis restarted empty) or a write failed, copies every revocation
/// younger than the access token lifetime from Postgres, then sets the marker; and it copies
/// the revocations whose copy is still owed, whichever replica made them
/// (`PendingRevocationCopies`).
struct RevocationReseeder: Service {
    let postgres: PostgresClient
    let revocations: RevocationList
    let clock: TokenClock
    let interval: Duration
    let logger: Logger
    var pending: PendingRevocationCopies {
        PendingRevocationCopies(postgres: self.postgres, revocations: self.revocations, clock: self.clock)
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await self.checkOnce()
                } catch {
                    self.logger.warning("Revocation reseed check failed", metadata: ["error": "\(error)"])
                }
                do {
                    try await self.pending.repair()
                } catch {
                    self.logger.warning("Cannot copy owed revocations to Redis", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: self.interval)
            }
        }
    }

    /// Reseeds when the marker is missing or a write failed. Returns whether it reseeded.
    @discardableResult
    func checkOnce() async throws -> Bool {
        let redis = self.revocations.redis
        if self.revocations.takeNeedsReseed() {
            // Readers must fail closed until the copy is whole again.
            _ = try await redis.command(["DEL", RevocationKeys.complete])
        } else if try await redis.command(["EXISTS", RevocationKeys.complete]).intValue == 1 {
            return false
        }
        try await self.reseed()
        return true
    }

    /// Copies every revocation still younger than the access token lifetime, then sets the marker.
    func reseed() async throws {
        let now = self.clock.now()
        let since = now.addingTimeInterval(-(self.revocations.accessTokenTTL + RevocationKeys.skewMargin))
        let sessions = try await self.postgres.query(
            """
            SELECT id, user_id, revoked_at, revoke_reason FROM tokens.sessions
            WHERE revoked_at IS NOT NULL AND revoked_at > $1
            """,
            [.timestamp(since)])
        let users = try await self.postgres.query(
            "SELECT user_id, not_before FROM tokens.user_revocations WHERE not_before > $1",
            [.timestamp(since)])
        var entries: [RevocationList.Entry] = []
        for row in sessions {
            entries.append(.session(
                try row.decode("id"), userID: try row.decode("user_id"),
                reason: try row.decode("revoke_reason", as: String?.self) ?? "revoked", revokedAt: try row.decode("revoked_at")))
        }
        for row in users {
            entries.append(.user(try row.decode("user_id"), notBefore: try row.decode("not_before")))
        }
        for start in stride(from: 0, to: entries.count, by: 1000) {
            try await self.revocations.write(Array(entries[start..<min(start + 1000, entries.count)]), now: now, publish: false)
        }
        _ = try await self.revocations.redis.pipeline([
            ["SET", RevocationKeys.complete, "1"],
            ["PUBLISH", RevocationKeys.channel, #"{"kind":"reseeded"}"#],
        ])
        self.logger.info("Revocations copied to Redis", metadata: ["tokens.revocations": "\(entries.count)"])
    }
}
