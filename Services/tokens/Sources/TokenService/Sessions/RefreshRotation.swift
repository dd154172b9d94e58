import AuditTrail
import TokensAPI
import FoundationEssentials
import Logging
import Postgres
import ServiceProtocol

/// Refresh: one atomic compare-and-set per token. Of N concurrent refreshes of one token
/// exactly one rotates; the others, within the grace window, get the identical successor pair
/// (opened with a key derived from the token they present); after it, the token is reuse and
/// its whole session is revoked.
///
/// A token this replica handed out (`RecentSessions`) is rotated in one statement: its pair is
/// signed from the remembered session, and the compare-and-set checks the rest. Any other token,
/// or one whose compare-and-set finds nothing to rotate, has its row read first.
struct RefreshRotation: Sendable {
    let postgres: PostgresClient
    /// tokens' audit trail: a detected reuse is recorded in the statement that revokes for it.
    var audit: AuditTrail { AuditTrail(postgres: self.postgres, table: TokensAudit.table) }
    let issuer: AccessTokenIssuer
    let revocations: RevocationList
    let recentSessions: RecentSessions
    let clock: TokenClock
    let reuseGrace: TimeInterval
    let logger: Logger
    /// The rotations of this replica: two statements at once, the rotations that wait behind
    /// them run together as one (`rotation(count:)`, up to 8): one round trip, one commit.
    let rotations = StatementLine<AllCalls, PendingRotation, Bool>(
        statementsAtOnce: 2, callsPerStatement: RefreshRotation.rotationsPerStatement)
    /// The most rotations `rotations` puts in one statement.
    static let rotationsPerStatement = 8

    /// What Postgres knows of a presented token and its session.
    struct TokenState: Sendable {
        var session: AccessTokenIssuer.SessionFacts
        var rotatedAt: Date?
        var successorSealed: [UInt8]?
        var sessionRevoked: Bool
    }

    /// The successor pair of `presented`, as the JSON the caller receives. `proofKey` is the
    /// thumbprint of the DPoP proof's key the gateway verified: a bound session's token is
    /// refused without its own (before anything else, so that a thief without the key can
    /// neither rotate the token nor get its session revoked as reuse). `context` says where the
    /// call came from, for the audit trail's `refresh_reuse_detected`.
    func refresh(_ presented: String, proofKey: String? = nil, context: RPCRequestContext? = nil) async throws -> RawJSON {
        guard let token = RefreshToken(presented: presented) else { throw TokenError.invalidRefreshToken }
        if let session = self.recentSessions.take(tokenHash: token.hash) {
            try Self.checkBinding(of: session, proofKey: proofKey)
            if let pair = try await self.rotate(token, of: session, now: self.clock.now()) { return pair }
        }
        // At most two rounds: a lost compare-and-set means another caller rotated; read its result.
        for _ in 0..<2 {
            let now = self.clock.now()
            guard let state = try await self.state(of: token), !state.sessionRevoked, now < state.session.expiresAt else {
                throw TokenError.invalidRefreshToken
            }
            try Self.checkBinding(of: state.session, proofKey: proofKey)
            if let rotatedAt = state.rotatedAt {
                return try await self.replay(token, state: state, rotatedAt: rotatedAt, now: now, context: context)
            }
            if let pair = try await self.rotate(token, of: state.session, now: now) {
                return pair
            }
        }
        throw TokenError.invalidRefreshToken
    }

    /// Signs the successor pair of `token` for `session` and rotates; nil when the
    /// compare-and-set finds nothing to rotate (rotated by another caller, or the session revoked
    /// or ended). A pair it returns is remembered for the successor's own refresh. The pair's
    /// JSON is written once: sealed for a retry, and sent.
    private func rotate(_ token: RefreshToken, of session: AccessTokenIssuer.SessionFacts, now: Date) async throws -> RawJSON? {
        guard now < session.expiresAt else { return nil }
        let successor = RefreshToken()
        let pair = try await self.issuer.pair(for: session, refreshToken: successor, now: now).json
        guard try await self.rotate(token, to: successor, sealing: pair, session: session.sessionID, now: now) else { return nil }
        TokenMetrics.rotations.increment()
        self.recentSessions.remember(session, forTokenHash: successor.hash)
        return pair
    }

    /// A bound session needs a proof by its key; an unbound one takes any (or none) and stays
    /// unbound.
    static func checkBinding(of session: AccessTokenIssuer.SessionFacts, proofKey: String?) throws(TokenError) {
        guard let bound = session.dpopJKT else { return }
        guard proofKey == bound else { throw .invalidDPoPProof }
    }

    /// A token already rotated: within the grace window its sealed successor, after it reuse.
    private func replay(
        _ token: RefreshToken, state: TokenState, rotatedAt: Date, now: Date, context: RPCRequestContext?
    ) async throws -> RawJSON {
        if now.timeIntervalSince(rotatedAt) <= self.reuseGrace {
            // Within the window the successor is normally there; if a replica with a fast clock
            // already cleared it, the caller must sign in again, but nothing is revoked.
            guard let sealed = state.successorSealed, let pair = token.open(sealed) else {
                throw TokenError.invalidRefreshToken
            }
            return pair.json
        }
        let session = state.session
        TokenMetrics.reuseDetections.increment()
        self.logger.warning(
            "Refresh token reuse: revoking the session",
            metadata: ["tokens.session_id": "\(session.sessionID)", "tokens.user_id": "\(session.userID)"])
        let revoked = try await self.postgres.query(
            """
            WITH revoked AS (
                UPDATE tokens.sessions SET revoked_at = $2, revoke_reason = 'refresh_token_reused'
                WHERE id = $1 AND revoked_at IS NULL
                RETURNING id, user_id
            ), pending AS (
                INSERT INTO tokens.revocation_copies (session_id, user_id) SELECT id, user_id FROM revoked
            ), audited AS (
                \(self.audit.insertSelect(userID: "user_id", sessionID: "id", from: "revoked", firstParameter: 3))
            )
            SELECT id FROM revoked
            """,
            [.uuid(session.sessionID), .timestamp(now)]
                + AuditTrail.selectBindings(AuditEntry(.refreshReuseDetected, userID: session.userID, context: context)))
        if !revoked.isEmpty {
            await self.revocations.record(
                [.session(session.sessionID, userID: session.userID, reason: "refresh_token_reused", revokedAt: now)], now: now)
        }
        throw TokenError.refreshTokenReused
    }

    private func state(of token: RefreshToken) async throws -> TokenState? {
        let rows = try await self.postgres.query(
            """
            SELECT r.rotated_at, r.successor_sealed, s.id, s.user_id, s.is_admin, s.expires_at, s.dpop_jkt,
                   s.revoked_at IS NOT NULL AS revoked
            FROM tokens.refresh_tokens r JOIN tokens.sessions s ON s.id = r.session_id
            WHERE r.hash = $1
            """,
            [.bytea(token.hash)])
        guard let row = rows.first else { return nil }
        return TokenState(
            session: .init(
                sessionID: try row.decode("id"), userID: try row.decode("user_id"), isAdmin: try row.decode("is_admin"),
                expiresAt: try row.decode("expires_at"), dpopJKT: try row.decode("dpop_jkt")),
            rotatedAt: try row.decode("rotated_at"), successorSealed: try row.decode("successor_sealed"),
            sessionRevoked: try row.decode("revoked"))
    }

    /// The compare-and-set: marks `token` rotated (storing the sealed successor) only if it was
    /// not yet and belongs to `session`, which is neither revoked nor ended, inserts the
    /// successor's row, and touches the session, in one statement. A concurrent caller's UPDATE
    /// waits on the row lock, then finds it rotated: false.
    private func rotate(
        _ token: RefreshToken, to successor: RefreshToken, sealing pair: RawJSON, session: UUID, now: Date
    ) async throws -> Bool {
        let rotation = PendingRotation(
            bindings: [.bytea(token.hash), .timestamp(now), .bytea(try token.seal(pair)), .bytea(successor.hash), .uuid(session)])
        return try await self.rotations.run(rotation, for: .all) { try await self.run($0) }
    }

    /// `rotations` as one statement (`rotation(count:)`), each answered with whether it
    /// rotated. When the statement fails (a deadlock with another replica's, say), nothing of it
    /// stays and each rotation runs alone, so that only a rotation that fails alone fails.
    func run(_ rotations: [PendingRotation]) async throws -> [Result<Bool, any Error>] {
        try await runTogether(rotations) { rotation in
            !(try await self.postgres.query(Self.rotation, rotation.bindings)).isEmpty
        } together: { rotations in
            let rows = try await self.postgres.query(Self.rotation(count: rotations.count), rotations.flatMap(\.bindings))
            // A rotation that took place gives one row; one that found nothing to rotate, none.
            return try rows.byCall(in: "rotation_index", calls: rotations.count).map { .success(!$0.isEmpty) }
        }
    }

    /// The rotation's statement: $1 the presented token's hash, $2 now, $3 the sealed successor
    /// pair, $4 the successor's hash, $5 the session the token was issued in.
    ///
    /// The token's row is found by its hash (the primary key) alone: the session is compared
    /// with `IS TRUE`, which no index can serve. With `r.session_id = $5` Postgres priced the
    /// session's index like the key once most sessions held one token (the statistics of a
    /// busy sign-in day), and then read every token a long-lived session was ever given (5 ms
    /// for a session refreshed 1,800 times, where the key takes 0.05).
    static var rotation: String { foldedRotations[1] }

    /// `count` rotations as one statement: the three steps once per rotation, rotation n's
    /// parameters as `$5n-4` ... `$5n` (`rotation`'s `$1` ... `$5`), and one row
    /// (`rotation_index`, 1-based) for each rotation that took place. Each rotation is still its
    /// own compare-and-set on its token's row; the statement's round trip, snapshot and commit
    /// are paid once for them all. A token presented twice in one statement is rotated by one
    /// of them (Postgres applies one update of a row per statement); the other finds nothing to
    /// rotate and reads the result, as it would after losing to a concurrent caller.
    static func rotation(count: Int) -> String { foldedRotations[count] }

    private static let foldedRotations = FoldedStatements(upTo: rotationsPerStatement, rotationStatement(count:))

    private static func rotationStatement(count: Int) -> String {
        let steps = (1...count).map { n in
            let p = { (index: Int) in "$\(5 * (n - 1) + index)" }
            return """
                rotated\(n) AS (
                    UPDATE tokens.refresh_tokens r SET rotated_at = \(p(2)), successor_sealed = \(p(3))
                    FROM tokens.sessions s
                    WHERE r.hash = \(p(1)) AND r.rotated_at IS NULL AND (r.session_id = \(p(5))) IS TRUE
                        AND s.id = r.session_id AND s.revoked_at IS NULL AND s.expires_at > \(p(2))
                    RETURNING r.session_id, r.generation
                ), touched\(n) AS (
                    UPDATE tokens.sessions s SET last_used_at = \(p(2))
                    FROM rotated\(n) WHERE s.id = rotated\(n).session_id AND s.revoked_at IS NULL
                    RETURNING s.id
                ), inserted\(n) AS (
                    INSERT INTO tokens.refresh_tokens (hash, session_id, generation, issued_at)
                    SELECT \(p(4)), rotated\(n).session_id, rotated\(n).generation + 1, \(p(2))
                    FROM rotated\(n) JOIN touched\(n) ON touched\(n).id = rotated\(n).session_id
                    RETURNING generation
                )
                """
        }
        let results = (1...count).map { "SELECT \($0) AS rotation_index FROM inserted\($0)" }
        return "WITH " + steps.joined(separator: ", ") + "\n" + results.joined(separator: "\nUNION ALL\n")
    }
}

/// One rotation waiting in `RefreshRotation.rotations`: `RefreshRotation.rotation`'s five
/// parameters.
struct PendingRotation: Sendable {
    var bindings: [PostgresValue]
}
