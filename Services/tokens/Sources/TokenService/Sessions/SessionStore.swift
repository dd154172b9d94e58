import AuditTrail
import TextCoding
import TokensAPI
import FoundationEssentials
import ServiceProtocol
import Postgres

/// Sessions in Postgres: creating one with its first refresh token (SessionStore+Creation),
/// listing, and marking sessions revoked. Refresh rotation has its own SQL in `RefreshRotation`.
struct SessionStore: Sendable {
    let postgres: PostgresClient
    /// The sessions this replica creates: two statements at once, the creations that wait
    /// behind them go together as one (`creation(count:)`, up to 8): one round trip, one commit.
    let creations = StatementLine<AllCalls, NewSession, Void>(
        statementsAtOnce: 2, callsPerStatement: SessionStore.creationsPerStatement)
    /// The most creations `creations` puts in one statement.
    static let creationsPerStatement = 8

    /// tokens' audit trail: each revocation records its event in the statement that makes it.
    var audit: AuditTrail { AuditTrail(postgres: self.postgres, table: TokensAudit.table) }

    /// The user's sessions that are neither revoked nor expired, most recently used first.
    func list(userID: UUID, now: Date) async throws -> [SessionSummary] {
        let rows = try await self.postgres.query(
            """
            SELECT id, device_name, created_at, last_used_at, expires_at, dpop_jkt IS NOT NULL AS bound
            FROM tokens.sessions
            WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2
            ORDER BY last_used_at DESC, id
            """,
            [.uuid(userID), .timestamp(now)])
        return try rows.map { row in
            SessionSummary(
                id: try row.decode("id"), deviceName: try row.decode("device_name"),
                createdAt: RFC3339.format(try row.decode("created_at")),
                lastUsedAt: RFC3339.format(try row.decode("last_used_at")),
                expiresAt: RFC3339.format(try row.decode("expires_at")), bound: try row.decode("bound"))
        }
    }

    /// Revokes one session of the user. Returns whether this call revoked it; nil when the
    /// session is not the user's.
    /// `event` is recorded when this call revoked the session.
    func revoke(sessionID: UUID, userID: UUID, reason: String, now: Date, event: AuditEntry) async throws -> Bool? {
        let rows = try await self.postgres.query(
            """
            WITH target AS (
                SELECT id, revoked_at FROM tokens.sessions WHERE id = $1 AND user_id = $2
            ), revoked AS (
                UPDATE tokens.sessions s SET revoked_at = $3, revoke_reason = $4
                FROM target WHERE s.id = target.id AND s.revoked_at IS NULL
                RETURNING s.id
            ), pending AS (
                INSERT INTO tokens.revocation_copies (session_id, user_id) SELECT id, $2 FROM revoked
            ), audited AS (
                \(self.audit.insertSelect(userID: "$2::uuid", sessionID: "id", from: "revoked", firstParameter: 5))
            )
            SELECT (SELECT count(*) FROM target) AS found, (SELECT count(*) FROM revoked) AS revoked
            """,
            [.uuid(sessionID), .uuid(userID), .timestamp(now), .text(reason)] + AuditTrail.selectBindings(event))
        guard let row = rows.first, try row.decode("found", as: Int.self) > 0 else { return nil }
        return try row.decode("revoked", as: Int.self) > 0
    }

    /// Revokes every live session of the user except `exceptSessionID`; returns the ids revoked.
    /// `event` is recorded once, with the number of sessions revoked (also none: the user or
    /// operator asked).
    func revokeAll(userID: UUID, except exceptSessionID: UUID?, reason: String, now: Date, event: AuditEntry) async throws -> [UUID] {
        try await self.postgres.query(
            """
            WITH revoked AS (
                UPDATE tokens.sessions SET revoked_at = $2, revoke_reason = $3
                WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2 AND id IS DISTINCT FROM $4
                RETURNING id
            ), pending AS (
                INSERT INTO tokens.revocation_copies (session_id, user_id) SELECT id, $1 FROM revoked
            ), audited AS (
                \(self.audit.insertSelect(
                    userID: "$1::uuid", sessionID: "$4::uuid", moreDetails: "jsonb_build_object('sessions', (SELECT count(*) FROM revoked))",
                    from: "(SELECT 1) AS one", firstParameter: 5))
            )
            SELECT id FROM revoked
            """,
            [.uuid(userID), .timestamp(now), .text(reason), PostgresValue(exceptSessionID)] + AuditTrail.selectBindings(event)
        ).map { try $0.decode("id") }
    }

    /// Records the user's not-before and revokes all their sessions, in one transaction.
    /// Every revocation here also leaves a row in `tokens.revocation_copies` in the same
    /// statement: the Redis copy is owed until a re-seeder removes it (`PendingRevocationCopies`).
    ///
    /// A deleted (or merged) user's audit events go in the same transaction; for a deactivation
    /// `event` records how many sessions it ended.
    func revokeUser(userID: UUID, reason: String, notBefore: Date, now: Date, event: AuditEntry?) async throws -> [UUID] {
        try await self.postgres.withTransaction { connection in
            try await connection.execute(
                """
                INSERT INTO tokens.user_revocations (user_id, not_before, reason) VALUES ($1, $2, $3)
                ON CONFLICT (user_id) DO UPDATE SET not_before = GREATEST(tokens.user_revocations.not_before, EXCLUDED.not_before),
                    reason = EXCLUDED.reason
                """,
                [.uuid(userID), .timestamp(notBefore), .text(reason)])
            let ids = try await connection.query(
                """
                WITH revoked AS (
                    UPDATE tokens.sessions SET revoked_at = $2, revoke_reason = $3
                    WHERE user_id = $1 AND revoked_at IS NULL
                    RETURNING id
                ), pending AS (
                    INSERT INTO tokens.revocation_copies (session_id, user_id)
                    SELECT id, $1 FROM revoked UNION ALL SELECT NULL, $1
                )
                SELECT id FROM revoked
                """,
                [.uuid(userID), .timestamp(now), .text(reason)]
            ).map { try $0.decode("id", as: UUID.self) }
            if var event {
                event.details["sessions"] = .int(ids.count)
                try await self.audit.record(event, on: connection)
            } else {
                try await self.audit.forget(user: userID, on: connection)
            }
            return ids
        }
    }

    /// Whether the session is revoked or the user has a not-before later than `issuedAt`:
    /// the authoritative check behind `verify` when the Redis copy is incomplete.
    func isRevoked(sessionID: UUID, userID: UUID, issuedAt: Date) async throws -> Bool {
        let rows = try await self.postgres.query(
            """
            SELECT
                EXISTS (SELECT 1 FROM tokens.sessions WHERE id = $1 AND revoked_at IS NOT NULL) AS session_revoked,
                EXISTS (SELECT 1 FROM tokens.user_revocations WHERE user_id = $2 AND not_before > $3) AS user_revoked
            """,
            [.uuid(sessionID), .uuid(userID), .timestamp(issuedAt)])
        guard let row = rows.first else { return true }
        return try row.decode("session_revoked", as: Bool.self) || row.decode("user_revoked", as: Bool.self)
    }
}
