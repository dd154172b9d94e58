import AuditAPI
import AuditTrail
import IdentityAPI
import FoundationEssentials
import Postgres
import ServiceProtocol
import TextCoding

/// Reads and changes provider identities in `identity.identities`, and the users they create
/// or join. Concurrent first sign-ins of one `(provider, subject)` serialise on an advisory
/// lock of that pair, so they make one user, never two.
struct IdentityStore: Sendable {
    let postgres: PostgresClient

    /// identity's audit trail, written in the transactions that make the changes it records.
    var audit: AuditTrail { AuditTrail(postgres: self.postgres, table: IdentityAudit.table) }

    /// Signs a known identity in and returns its user, and whether the user's own row changed
    /// (its email followed the provider's); nil when the identity is new.
    /// `last_sign_in_at` is kept to the minute, and the provider's email facts refreshed when
    /// they changed: a repeat sign-in within a minute writes nothing (and takes no row lock).
    ///
    /// The user's email follows the provider's: when the provider now gives another verified
    /// email and the user's email was this identity's (it came from it), the user's becomes the
    /// new one. An email the user got from another identity stays.
    func signInKnown(_ identity: VerifiedIdentity) async throws -> (user: User, changedUser: Bool)? {
        let row = try await self.postgres.query(
            """
            WITH found AS (
                SELECT user_id FROM identity.identities WHERE provider = $1 AND subject = $2
            ), followed AS (
                UPDATE identity.users u SET email = $3::text, email_verified = true, updated_at = now()
                FROM identity.identities i
                WHERE i.provider = $1 AND i.subject = $2 AND u.id = i.user_id
                  AND $3::text IS NOT NULL AND $4::boolean
                  AND u.email IS NOT DISTINCT FROM i.email AND u.email IS DISTINCT FROM $3::text
                RETURNING u.id, u.email, u.updated_at
            ), feed AS (
                -- The feed's lock, then its number (EventFeed): only when the email followed.
                INSERT INTO identity.user_events (seq, id, type, user_id)
                SELECT nextval('identity.user_event_seq'), gen_random_uuid(), 'user.updated', f.id
                FROM followed f CROSS JOIN LATERAL (SELECT pg_advisory_xact_lock(hashtext('\(EventFeed.lockKey)'))) l
            ), touched AS (
                UPDATE identity.identities
                SET last_sign_in_at = now(),
                    email = COALESCE($3::text, email),
                    email_verified = CASE WHEN $3::text IS NULL THEN email_verified ELSE $4::boolean END,
                    is_private_email = CASE WHEN $3::text IS NULL THEN is_private_email ELSE $5::boolean END
                WHERE provider = $1 AND subject = $2
                  AND (last_sign_in_at < now() - interval '1 minute'
                       OR ($3::text IS NOT NULL
                           AND (email IS DISTINCT FROM $3::text OR email_verified <> $4::boolean
                                OR is_private_email <> $5::boolean)))
                RETURNING user_id
            )
            SELECT \(UserRow.columns), (SELECT email FROM followed) AS followed_email,
                   (SELECT updated_at FROM followed) AS followed_at
            FROM identity.users u JOIN found f ON f.user_id = u.id
            """,
            [
                .text(identity.provider.rawValue), .text(identity.subject), PostgresValue(identity.email),
                .bool(identity.emailVerified), .bool(identity.isPrivateEmail),
            ]
        ).first
        guard let row else { return nil }
        var user = try UserRow.user(row)
        // The statement's snapshot predates its own update: apply it to the answer.
        if let email = try row.decode("followed_email", as: String?.self) {
            user.email = email
            user.emailVerified = true
            user.updatedAt = try row.decode("followed_at", as: Date?.self) ?? user.updatedAt
            return (user, true)
        }
        return (user, false)
    }

    /// What `signInNew` did.
    enum NewSignIn {
        /// Another sign-in created the identity first; sign in as known.
        case alreadyExists
        case linkedToExisting(UUID)
        case createdUser(UUID)
    }

    /// Attaches a new identity to the user with the same verified email (when `linkByEmail`),
    /// or to a new user, or to the guest `intoGuest` (which stops being one).
    /// `fallbackEmail` is the client's unverified email for tokens without one.
    func signInNew(
        _ identity: VerifiedIdentity, linkByEmail: Bool, fallbackEmail: String?, intoGuest guest: UUID? = nil,
        context: RPCRequestContext? = nil
    ) async throws -> NewSignIn {
        try await self.postgres.withTransaction { connection in
            try await Self.lockIdentity(identity, on: connection)
            if try await Self.owner(of: identity, on: connection) != nil { return .alreadyExists }
            if linkByEmail, identity.mayLinkByEmail, let email = identity.email {
                let key = VerifiedIdentity.emailMatchKey(email)
                _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("identity-email:" + key)])
                // ASCII case folding only (`lower` would fold by the database's locale).
                let rows = try await connection.query(
                    """
                    SELECT u.id, u.is_active FROM identity.users u
                    WHERE translate(u.email, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = $1
                      AND u.email_verified
                      AND NOT EXISTS (
                          SELECT 1 FROM identity.identities i WHERE i.user_id = u.id AND i.provider = $2)
                    ORDER BY u.created_at LIMIT 1
                    """, [.text(key), .text(identity.provider.rawValue)])
                if let row = rows.first {
                    let userID: UUID = try row.decode("id")
                    guard try row.decode("is_active", as: Bool.self) else { throw IdentityError.userInactive }
                    try await Self.insert(identity, for: userID, on: connection)
                    try await Self.fillProfile(userID, from: identity, on: connection)
                    try await self.audit.record(
                        AuditEntry(
                            .identityLinked, userID: userID, context: context,
                            details: ["provider": .string(identity.provider.rawValue), "by_email": .bool(true)]),
                        on: connection)
                    try await EventFeed.append(
                        .identityLinked, user: userID, data: ["provider": .string(identity.provider.rawValue)], on: connection)
                    return .linkedToExisting(userID)
                }
            }
            let email = identity.email ?? fallbackEmail
            if let guest {
                let upgraded = try await connection.execute(
                    """
                    UPDATE identity.users
                    SET is_guest = false, email = $2, email_verified = $3, display_name = COALESCE(display_name, $4::text),
                        updated_at = now()
                    WHERE id = $1 AND is_guest
                    """,
                    [
                        .uuid(guest), PostgresValue(email), .bool(identity.email != nil && identity.emailVerified),
                        PostgresValue(identity.name),
                    ])
                guard upgraded > 0 else { throw IdentityError.notAGuest }
                try await Self.insert(identity, for: guest, on: connection)
                try await self.audit.record(
                    AuditEntry(.guestUpgraded, userID: guest, context: context, details: ["provider": .string(identity.provider.rawValue)]),
                    on: connection)
                try await EventFeed.append(.guestUpgraded, user: guest, data: ["provider": .string(identity.provider.rawValue)], on: connection)
                return .createdUser(guest)
            }
            let userID = UUID.random()
            try await connection.execute(
                "INSERT INTO identity.users (id, email, email_verified, display_name) VALUES ($1, $2, $3, $4)",
                [
                    .uuid(userID), PostgresValue(email), .bool(identity.email != nil && identity.emailVerified),
                    PostgresValue(identity.name),
                ])
            try await Self.insert(identity, for: userID, on: connection)
            try await EventFeed.append(
                .userCreated, user: userID, data: ["is_guest": .bool(false), "provider": .string(identity.provider.rawValue)],
                on: connection)
            return .createdUser(userID)
        }
    }

    /// Links `identity` to `userID` at the user's request.
    func link(_ identity: VerifiedIdentity, to userID: UUID, context: RPCRequestContext? = nil) async throws {
        try await self.postgres.withTransaction { connection in
            try await Self.lockIdentity(identity, on: connection)
            let users = try await connection.query(
                "SELECT is_active FROM identity.users WHERE id = $1 FOR UPDATE", [.uuid(userID)])
            guard let user = users.first else { throw IdentityError.userNotFound }
            guard try user.decode("is_active", as: Bool.self) else { throw IdentityError.userInactive }
            if let owner = try await Self.owner(of: identity, on: connection) {
                guard owner == userID else { throw IdentityError.identityAlreadyLinked }
                return
            }
            let sameProvider = try await connection.query(
                "SELECT 1 FROM identity.identities WHERE user_id = $1 AND provider = $2",
                [.uuid(userID), .text(identity.provider.rawValue)])
            guard sameProvider.isEmpty else { throw IdentityError.providerAlreadyLinked(identity.provider) }
            try await Self.insert(identity, for: userID, on: connection)
            try await Self.fillProfile(userID, from: identity, on: connection)
            // A guest that links its first identity stops being a guest (DESIGN.md section 9.1).
            let upgraded = try await connection.execute(
                "UPDATE identity.users SET is_guest = false, updated_at = now() WHERE id = $1 AND is_guest", [.uuid(userID)])
            let provider: [String: AuditValue] = ["provider": .string(identity.provider.rawValue)]
            try await self.audit.record(AuditEntry(.identityLinked, userID: userID, context: context, details: provider), on: connection)
            if upgraded > 0 {
                try await self.audit.record(AuditEntry(.guestUpgraded, userID: userID, context: context, details: provider), on: connection)
            }
            try await EventFeed.append(.identityLinked, user: userID, data: provider, on: connection)
            if upgraded > 0 { try await EventFeed.append(.guestUpgraded, user: userID, data: provider, on: connection) }
        }
    }

    /// Removes the user's identity of `provider`, moving an Apple refresh token to the
    /// revocation outbox. Refuses to remove the last one.
    func unlink(_ provider: IdentityProvider, from userID: UUID, context: RPCRequestContext? = nil) async throws {
        try await self.postgres.withTransaction { connection in
            let users = try await connection.query(
                "SELECT id FROM identity.users WHERE id = $1 FOR UPDATE", [.uuid(userID)])
            guard !users.isEmpty else { throw IdentityError.userNotFound }
            let rows = try await connection.query(
                "SELECT provider FROM identity.identities WHERE user_id = $1", [.uuid(userID)])
            let providers = try rows.map { try $0.decode("provider", as: String.self) }
            guard providers.contains(provider.rawValue) else { throw IdentityError.identityNotLinked(provider) }
            guard providers.count > 1 else { throw IdentityError.lastIdentity }
            try await connection.execute(
                """
                INSERT INTO identity.apple_revocations (client_id, refresh_token)
                SELECT apple_client_id, apple_refresh_token FROM identity.identities
                WHERE user_id = $1 AND provider = $2 AND apple_refresh_token IS NOT NULL AND apple_client_id IS NOT NULL
                """, [.uuid(userID), .text(provider.rawValue)])
            try await connection.execute(
                "DELETE FROM identity.identities WHERE user_id = $1 AND provider = $2",
                [.uuid(userID), .text(provider.rawValue)])
            try await connection.execute(
                "UPDATE identity.users SET updated_at = now() WHERE id = $1", [.uuid(userID)])
            try await self.audit.record(
                AuditEntry(.identityUnlinked, userID: userID, context: context, details: ["provider": .string(provider.rawValue)]),
                on: connection)
            try await EventFeed.append(.identityUnlinked, user: userID, data: ["provider": .string(provider.rawValue)], on: connection)
        }
    }

    /// Stores Apple's (sealed) refresh token for an identity; a replaced one goes to the outbox.
    func storeAppleRefreshToken(subject: String, sealed: [UInt8], clientID: String) async throws {
        try await self.postgres.withTransaction { connection in
            try await connection.execute(
                """
                INSERT INTO identity.apple_revocations (client_id, refresh_token)
                SELECT apple_client_id, apple_refresh_token FROM identity.identities
                WHERE provider = 'apple' AND subject = $1 AND apple_refresh_token IS NOT NULL
                  AND apple_client_id IS NOT NULL
                """, [.text(subject)])
            try await connection.execute(
                """
                UPDATE identity.identities SET apple_refresh_token = $2, apple_client_id = $3
                WHERE provider = 'apple' AND subject = $1
                """, [.text(subject), .bytea(sealed), .text(clientID)])
        }
    }

    // MARK: Pieces run inside a transaction

    private static func lockIdentity(_ identity: VerifiedIdentity, on connection: PostgresConnection) async throws {
        try await Self.lockIdentity(provider: identity.provider, subject: identity.subject, on: connection)
    }

    /// Serialises every transaction about one `(provider, subject)`: first sign-ins, links and
    /// Apple's notifications.
    static func lockIdentity(provider: IdentityProvider, subject: String, on connection: PostgresConnection) async throws {
        _ = try await connection.query(
            "SELECT pg_advisory_xact_lock(hashtext($1))", [.text("identity:\(provider.rawValue):\(subject)")])
    }

    private static func owner(of identity: VerifiedIdentity, on connection: PostgresConnection) async throws -> UUID? {
        try await connection.query(
            "SELECT user_id FROM identity.identities WHERE provider = $1 AND subject = $2",
            [.text(identity.provider.rawValue), .text(identity.subject)]
        ).first?.decode("user_id", as: UUID.self)
    }

    private static func insert(_ identity: VerifiedIdentity, for userID: UUID, on connection: PostgresConnection) async throws {
        try await connection.execute(
            """
            INSERT INTO identity.identities (provider, subject, user_id, email, email_verified, is_private_email)
            VALUES ($1, $2, $3, $4, $5, $6)
            """,
            [
                .text(identity.provider.rawValue), .text(identity.subject), .uuid(userID), PostgresValue(identity.email),
                .bool(identity.emailVerified), .bool(identity.isPrivateEmail),
            ])
    }

    /// Gives a user without an email or name the ones this identity brings; never overwrites.
    private static func fillProfile(_ userID: UUID, from identity: VerifiedIdentity, on connection: PostgresConnection) async throws {
        try await connection.execute(
            """
            UPDATE identity.users
            SET email_verified = CASE WHEN email IS NULL THEN $3 ELSE email_verified END,
                email = COALESCE(email, $2::text),
                display_name = COALESCE(display_name, $4::text),
                updated_at = now()
            WHERE id = $1
            """,
            [
                .uuid(userID), PostgresValue(identity.email), .bool(identity.email != nil && identity.emailVerified),
                PostgresValue(identity.name),
            ])
    }
}
