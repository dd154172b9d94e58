import FoundationEssentials
import Postgres

/// The Redis copies still owed for revocations (`tokens.revocation_copies`, written in the
/// revocation's own transaction). Every replica's re-seeder calls `repair` each interval: rows
/// older than `settleTime` are copied to Redis again, with their channel messages, and
/// removed. The replica that revoked normally copied them already (a second SET of the same
/// value is harmless); when its write failed or it died before writing, another replica
/// makes up for it.
struct PendingRevocationCopies: Sendable {
    let postgres: PostgresClient
    let revocations: RevocationList
    let clock: TokenClock
    /// Time for the revoking replica to write the copy itself, by the database's clock.
    var settleTime: Duration = .seconds(2)
    var batchSize = 1000

    /// Copies one batch of owed revocations and removes their rows; returns how many rows it
    /// handled. Rows stay when Redis refuses the copy.
    @discardableResult
    func repair() async throws -> Int {
        let rows = try await self.postgres.query(
            """
            SELECT c.id, c.session_id, c.user_id, s.revoked_at, s.revoke_reason, u.not_before
            FROM tokens.revocation_copies c
            LEFT JOIN tokens.sessions s ON s.id = c.session_id
            LEFT JOIN tokens.user_revocations u ON c.session_id IS NULL AND u.user_id = c.user_id
            WHERE c.created_at < now() - make_interval(secs => $1)
            ORDER BY c.id
            LIMIT $2
            """,
            [.double(Double(self.settleTime.components.seconds)), .int(self.batchSize)])
        guard !rows.isEmpty else { return 0 }
        var ids: [Int64] = []
        var entries: [RevocationList.Entry] = []
        for row in rows {
            ids.append(try row.decode("id"))
            let userID: UUID = try row.decode("user_id")
            if let sessionID = try row.decode("session_id", as: UUID?.self) {
                // A session the cleanup has deleted since has nothing left to copy.
                guard let revokedAt = try row.decode("revoked_at", as: Date?.self) else { continue }
                let reason = try row.decode("revoke_reason", as: String?.self) ?? "revoked"
                entries.append(.session(sessionID, userID: userID, reason: reason, revokedAt: revokedAt))
            } else if let notBefore = try row.decode("not_before", as: Date?.self) {
                entries.append(.user(userID, notBefore: notBefore))
            }
        }
        try await self.revocations.write(entries, now: self.clock.now(), publish: true)
        try await self.postgres.execute(
            "DELETE FROM tokens.revocation_copies WHERE id = ANY($1::bigint[])",
            [.text("{" + ids.map(String.init).joined(separator: ",") + "}")])
        return rows.count
    }
}
