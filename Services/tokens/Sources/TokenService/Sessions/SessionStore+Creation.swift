import AuditTrail
import FoundationEssentials
import Postgres

/// A session waiting in `SessionStore.creations`: `SessionStore.creation`'s parameters.
struct NewSession: Sendable {
    var bindings: [PostgresValue]
}

extension SessionStore {
    /// Creates the session and its generation-0 refresh token in one statement, alone or with
    /// the creations that waited in `creations` with it; `event` (a sign-in's) is recorded in
    /// the same statement, so the session and its record commit together.
    func create(
        sessionID: UUID, userID: UUID, isAdmin: Bool, deviceName: String?, dpopJKT: String? = nil, refreshTokenHash: [UInt8],
        now: Date, expiresAt: Date, event: AuditEntry? = nil
    ) async throws {
        let session = NewSession(bindings: [
            .uuid(sessionID), .uuid(userID), .bool(isAdmin), PostgresValue(deviceName), .timestamp(now), .timestamp(expiresAt),
            .bytea(refreshTokenHash), PostgresValue(dpopJKT),
        ] + (event.map(AuditTrail.selectBindings) ?? AuditTrail.noSelectBindings))
        try await self.creations.run(session, for: .all) { try await self.run($0) }
    }

    /// `sessions` as one statement (`creation(count:)`). When the statement fails, nothing of it
    /// stays and each creation runs alone, so that only a creation that fails alone fails.
    func run(_ sessions: [NewSession]) async throws -> [Result<Void, any Error>] {
        try await runTogether(sessions) { session in
            _ = try await self.postgres.execute(Self.creation, session.bindings)
        } together: { sessions in
            let rows = try await self.postgres.query(Self.creation(count: sessions.count), sessions.flatMap(\.bindings))
            // Each creation gives its one row: the statement either made them all or failed.
            return try rows.byCall(in: "creation_index", calls: sessions.count).map { rows in
                rows.count == 1 ? .success(()) : .failure(PostgresError.decoding(column: "creation_index", message: "no session made"))
            }
        }
    }

    /// The creation's statement: $1 the session's id, $2 its user, $3 whether an admin, $4 the
    /// device's name, $5 now, $6 when it ends, $7 the first refresh token's hash, $8 the
    /// thumbprint of the key it is bound to (DPoP) or null, $9 ... $14 the audit event recorded
    /// with it (`AuditTrail.selectBindings`; nulls for none).
    static var creation: String { foldedCreations[1] }

    /// The parameters of one creation.
    static let parametersPerCreation = 8 + AuditTrail.selectParameterCount

    /// `count` creations as one statement, creation n's parameters as `$14n-13` ... `$14n`
    /// (`creation`'s `$1` ... `$14`), one row (`creation_index`, 1-based) for each. The
    /// statement's round trip and commit are paid once for them all.
    static func creation(count: Int) -> String { foldedCreations[count] }

    private static let foldedCreations = FoldedStatements(upTo: creationsPerStatement, creationStatement(count:))

    private static func creationStatement(count: Int) -> String {
        let steps = (1...count).map { n in
            let first = Self.parametersPerCreation * (n - 1)
            let p = { (index: Int) in "$\(first + index)" }
            return """
                session\(n) AS (
                    INSERT INTO tokens.sessions (id, user_id, is_admin, device_name, created_at, last_used_at, expires_at, dpop_jkt)
                    VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)), \(p(5)), \(p(6)), \(p(8)))
                    RETURNING id
                ), token\(n) AS (
                    INSERT INTO tokens.refresh_tokens (hash, session_id, generation, issued_at)
                    SELECT \(p(7)), id, 0, \(p(5)) FROM session\(n)
                    RETURNING session_id
                ), event\(n) AS (
                    \(AuditTrail.insertSelect(
                        into: TokensAudit.table, userID: "\(p(2))::uuid", sessionID: "id",
                        from: "session\(n) WHERE \(p(9))::uuid IS NOT NULL", firstParameter: first + 9))
                )
                """
        }
        let results = (1...count).map { "SELECT \($0) AS creation_index FROM token\($0)" }
        return "WITH " + steps.joined(separator: ", ") + "\n" + results.joined(separator: "\nUNION ALL\n")
    }
}
