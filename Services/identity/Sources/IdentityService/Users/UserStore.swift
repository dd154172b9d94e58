import AuditAPI
import AuditTrail
import IdentityAPI
import FoundationEssentials
import Postgres
import ServiceProtocol
import TextCoding

/// Reads and changes users in `identity.users`.
struct UserStore: Sendable {
    let postgres: PostgresClient

    /// identity's audit trail, written in the transactions that make the changes it records.
    var audit: AuditTrail { AuditTrail(postgres: self.postgres, table: IdentityAudit.table) }

    func user(_ id: UUID) async throws -> User? {
        try await self.postgres.query("SELECT \(UserRow.columns) FROM identity.users u WHERE u.id = $1", [.uuid(id)])
            .first.map(UserRow.user)
    }

    /// A new guest: no email, name or identity until it signs in with a provider.
    func createGuest(context: RPCRequestContext? = nil) async throws -> User {
        let id = UUID.random()
        try await self.postgres.withTransaction { connection in
            try await connection.execute("INSERT INTO identity.users (id, is_guest) VALUES ($1, true)", [.uuid(id)])
            try await self.audit.record(AuditEntry(.guestCreated, userID: id, context: context), on: connection)
            try await EventFeed.append(.userCreated, user: id, data: ["is_guest": .bool(true)], on: connection)
        }
        guard let user = try await self.user(id) else { throw IdentityError.userNotFound }
        return user
    }

    /// The user with each linked identity.
    func userWithIdentities(_ id: UUID) async throws -> User? {
        guard var user = try await self.user(id) else { return nil }
        let rows = try await self.postgres.query(
            """
            SELECT provider, subject, email, email_verified, is_private_email, email_forwarding, created_at, last_sign_in_at
            FROM identity.identities WHERE user_id = $1 ORDER BY provider
            """, [.uuid(id)])
        user.identities = try rows.map { row in
            LinkedIdentity(
                provider: IdentityProvider(rawValue: try row.decode("provider")) ?? .apple,
                subject: try row.decode("subject"), email: try row.decode("email"),
                emailVerified: try row.decode("email_verified"), isPrivateEmail: try row.decode("is_private_email"),
                emailForwarding: try row.decode("email_forwarding"),
                createdAt: try row.decode("created_at"), lastSignInAt: try row.decode("last_sign_in_at"))
        }
        return user
    }

    /// Sets a display name only where none is stored: a later sign-in without a name (Apple
    /// sends it once) never erases it, and a stored one is never replaced.
    func fillDisplayName(_ id: UUID, _ name: String) async throws -> Bool {
        try await self.postgres.withTransaction { connection in
            let filled = try await connection.execute(
                "UPDATE identity.users SET display_name = $2, updated_at = now() WHERE id = $1 AND display_name IS NULL",
                [.uuid(id), .text(name)]) > 0
            if filled { try await EventFeed.append(.userUpdated, user: id, on: connection) }
            return filled
        }
    }

    /// Deactivates or activates the user; a change (not a repeat) is audited in its transaction.
    func setActive(_ id: UUID, _ active: Bool, context: RPCRequestContext? = nil) async throws -> User? {
        let found = try await self.postgres.withTransaction { connection in
            let rows = try await connection.query("SELECT is_active FROM identity.users WHERE id = $1 FOR UPDATE", [.uuid(id)])
            guard let row = rows.first else { return false }
            guard try row.decode("is_active", as: Bool.self) != active else { return true }
            try await connection.execute(
                "UPDATE identity.users SET is_active = $2, updated_at = now() WHERE id = $1", [.uuid(id), .bool(active)])
            try await self.audit.record(
                AuditEntry(active ? .userActivated : .userDeactivated, userID: id, context: context), on: connection)
            try await EventFeed.append(active ? .userActivated : .userDeactivated, user: id, on: connection)
            return true
        }
        return found ? try await self.user(id) : nil
    }

    func setAdmin(_ id: UUID, _ admin: Bool) async throws -> User? {
        let found = try await self.postgres.withTransaction { connection in
            let changed = try await connection.query(
                """
                UPDATE identity.users u SET is_admin = $2, updated_at = now()
                FROM (SELECT id FROM identity.users WHERE id = $1 FOR UPDATE) old
                WHERE u.id = old.id AND u.is_admin <> $2
                RETURNING u.id
                """, [.uuid(id), .bool(admin)])
            if !changed.isEmpty { try await EventFeed.append(.userUpdated, user: id, on: connection) }
            return try await connection.query("SELECT 1 FROM identity.users WHERE id = $1", [.uuid(id)]).count > 0
        }
        return found ? try await self.user(id) : nil
    }

    /// Deletes the user and its identities; their Apple refresh tokens move to the revocation
    /// outbox in the same transaction. False when there was no such user. The user's audit
    /// events go in the same transaction, and the deletion is recorded without IP or user agent
    /// (a guest merged into `reason`'s target is recorded as the target's `guest_merged`).
    func delete(
        _ id: UUID, onlyGuest: Bool = false, reason: DeletionReason = .user, context: RPCRequestContext? = nil
    ) async throws -> Bool {
        try await self.postgres.withTransaction { connection in
            if onlyGuest {
                let rows = try await connection.query("SELECT is_guest FROM identity.users WHERE id = $1 FOR UPDATE", [.uuid(id)])
                guard let row = rows.first else { throw IdentityError.userNotFound }
                guard try row.decode("is_guest", as: Bool.self) else { return false }
            }
            try await connection.execute(
                """
                INSERT INTO identity.apple_revocations (client_id, refresh_token)
                SELECT apple_client_id, apple_refresh_token FROM identity.identities
                WHERE user_id = $1 AND apple_refresh_token IS NOT NULL AND apple_client_id IS NOT NULL
                """, [.uuid(id)])
            guard try await connection.execute("DELETE FROM identity.users WHERE id = $1", [.uuid(id)]) > 0 else { return false }
            try await Self.recordDeletion(of: id, reason: reason, context: context, audit: self.audit, on: connection)
            return true
        }
    }

    /// Forgets the deleted user's audit events and feed events, and records the deletion itself
    /// without personal data: `account_deleted` (by whom, `merged` for a guest whose state went
    /// into another account, which also gets `guest_merged`), and in the feed `user.deleted`
    /// or the target's `guest.merged`. Appends to the feed: run last.
    static func recordDeletion(
        of id: UUID, reason: DeletionReason, context: RPCRequestContext?, audit: AuditTrail, on connection: PostgresConnection
    ) async throws {
        try await audit.forget(user: id, on: connection)
        try await EventFeed.forget(user: id, on: connection)
        try await audit.record(
            AuditEntry(.accountDeleted, userID: id, context: context, details: ["by": .string(reason.by)]).anonymous, on: connection)
        if case .mergedInto(let target) = reason {
            let guest = AuditValue.string(id.uuidString.lowercased())
            try await audit.record(AuditEntry(.guestMerged, userID: target, context: context, details: ["guest_id": guest]), on: connection)
            try await EventFeed.append(
                .guestMerged, user: target, data: ["guest_id": guest, "target_id": .string(target.uuidString.lowercased())],
                on: connection)
        } else {
            try await EventFeed.append(.userDeleted, user: id, data: ["by": .string(reason.by)], on: connection)
        }
    }

    /// One page of users, newest first, optionally filtered by a text that matches the email
    /// or display name (substring, case-insensitive) or the id.
    func list(
        query: String?, limit: Int, after cursor: UserCursor?, guest: Bool? = nil, minAgeSeconds: Int? = nil
    ) async throws -> (users: [User], next: UserCursor?) {
        let pattern = query.map { "%" + Self.escapeLike($0) + "%" }
        let rows = try await self.postgres.query(
            """
            SELECT \(UserRow.columns), (extract(epoch FROM u.created_at) * 1000000)::bigint AS created_us
            FROM identity.users u
            WHERE ($1::text IS NULL OR u.email ILIKE $1 OR u.display_name ILIKE $1 OR u.id::text = lower($2::text))
              AND ($3::bigint IS NULL
                   OR (u.created_at, u.id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::uuid))
              AND ($6::boolean IS NULL OR u.is_guest = $6::boolean)
              AND ($7::bigint IS NULL OR u.created_at <= now() - $7::bigint * interval '1 second')
            ORDER BY u.created_at DESC, u.id DESC
            LIMIT $5
            """,
            [
                PostgresValue(pattern), PostgresValue(query), PostgresValue(cursor?.createdMicros),
                PostgresValue(cursor?.id), .int(limit + 1), PostgresValue(guest), PostgresValue(minAgeSeconds),
            ])
        let users = try rows.prefix(limit).map(UserRow.user)
        guard rows.count > limit, let last = rows.prefix(limit).last else { return (users, nil) }
        return (users, UserCursor(createdMicros: try last.decode("created_us"), id: try last.decode("id")))
    }

    /// `%`, `_` and `\` match themselves in a LIKE pattern.
    static func escapeLike(_ text: String) -> String {
        text.replacingBytes(of: "\\", with: "\\\\").replacingBytes(of: "%", with: "\\%").replacingBytes(of: "_", with: "\\_")
    }
}

/// Where a page of users ends: the last user's creation time (µs since the epoch) and id,
/// sent to clients as opaque base64url text.
struct UserCursor: Equatable {
    var createdMicros: Int
    var id: UUID

    init(createdMicros: Int, id: UUID) {
        self.createdMicros = createdMicros
        self.id = id
    }

    init?(text: String) {
        var base64 = text.replacing("-", with: "+").replacing("_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard text.count <= 128, let data = Data(base64Encoded: base64) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: "|")
        // 36 characters: Foundation's UUID reading stops at a NUL and ignores what follows.
        guard parts.count == 2, let micros = Int(parts[0]), parts[1].utf8.count == 36, let id = UUID(uuidString: String(parts[1])) else { return nil }
        self.init(createdMicros: micros, id: id)
    }

    var text: String {
        Base64URL.encode("\(self.createdMicros)|\(self.id.uuidString)".utf8)
    }
}
