import AuditAPI
import AuditTrail
import FoundationEssentials
import IdentityAPI
import Postgres
import ServiceProtocol

/// Applies Apple's notifications to `identity` in one transaction each, remembering every
/// `jti` (`identity.apple_notifications`) so that a notification changes things once.
struct AppleNotificationStore: Sendable {
    let postgres: PostgresClient

    /// What applying one notification did, and what is left for the caller.
    struct Result: Sendable, Equatable {
        var outcome: AppleNotificationOutcome
        var followUp: AppleNotificationFollowUp
        var userID: UUID?
    }

    /// identity's audit trail: each applied notification is recorded in its transaction.
    var audit: AuditTrail { AuditTrail(postgres: self.postgres, table: IdentityAudit.table) }

    func apply(_ notification: AppleNotification, context: RPCRequestContext? = nil) async throws -> Result {
        // A `jti` is remembered 30 days, well beyond `AppleNotificationVerifier.maximumAge`.
        try await self.postgres.execute("DELETE FROM identity.apple_notifications WHERE received_at < now() - interval '30 days'")
        return try await self.postgres.withTransaction { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO identity.apple_notifications (jti, event_type, subject) VALUES ($1, $2, $3)
                ON CONFLICT (jti) DO NOTHING RETURNING jti
                """, [.text(notification.tokenID), .text(notification.kind.label), .text(notification.subject)])
            guard !inserted.isEmpty else { return try await Self.repeated(notification.tokenID, on: connection) }
            let result = try await Self.change(notification, on: connection)
            if result.outcome == .applied, let userID = result.userID {
                if result.followUp == .deleteAccount {
                    // The account went with Apple's: its trail too, the deletion recorded without personal data.
                    try await UserStore.recordDeletion(of: userID, reason: .apple, context: context, audit: self.audit, on: connection)
                }
                var entry = AuditEntry(
                    .appleNotification, userID: userID, context: context, details: ["type": .string(notification.kind.label)])
                if result.followUp == .deleteAccount { entry = entry.anonymous }
                try await self.audit.record(entry, on: connection)
                if result.followUp == .revokeSessions {
                    if case .accountDeleted = notification.kind {
                        try await EventFeed.append(.identityUnlinked, user: userID, data: ["provider": .string("apple")], on: connection)
                    }
                    try await EventFeed.append(.sessionsRevoked, user: userID, data: ["reason": .string("apple")], on: connection)
                }
            }
            try await connection.execute(
                """
                UPDATE identity.apple_notifications
                SET user_id = $2, follow_up = $3, completed_at = CASE WHEN $3 = 'none' THEN now() END
                WHERE jti = $1
                """, [.text(notification.tokenID), PostgresValue(result.userID), .text(result.followUp.rawValue)])
            return result
        }
    }

    /// Records that the caller did the follow-up of `jti`; a later repeat then hands out none.
    func complete(_ jti: String) async throws {
        try await self.postgres.execute(
            "UPDATE identity.apple_notifications SET completed_at = now() WHERE jti = $1 AND completed_at IS NULL", [.text(jti)])
    }

    /// A `jti` seen before: nothing changes; a follow-up that was never confirmed is handed out again.
    private static func repeated(_ jti: String, on connection: PostgresConnection) async throws -> Result {
        let rows = try await connection.query(
            "SELECT user_id, follow_up, completed_at IS NOT NULL AS completed FROM identity.apple_notifications WHERE jti = $1",
            [.text(jti)])
        guard let row = rows.first, try !row.decode("completed", as: Bool.self),
            let followUp = AppleNotificationFollowUp(rawValue: try row.decode("follow_up"))
        else { return Result(outcome: .repeated, followUp: .none, userID: nil) }
        return Result(outcome: .repeated, followUp: followUp, userID: try row.decode("user_id"))
    }

    /// The change the event asks for, inside the transaction that recorded its `jti`.
    private static func change(_ notification: AppleNotification, on connection: PostgresConnection) async throws -> Result {
        if case .unknown = notification.kind { return Result(outcome: .unknownType, followUp: .none, userID: nil) }
        try await IdentityStore.lockIdentity(provider: .apple, subject: notification.subject, on: connection)
        let owners = try await connection.query(
            "SELECT user_id FROM identity.identities WHERE provider = 'apple' AND subject = $1", [.text(notification.subject)])
        guard let userID = try owners.first?.decode("user_id", as: UUID.self) else {
            return Result(outcome: .unknownSubject, followUp: .none, userID: nil)
        }
        switch notification.kind {
        case .consentRevoked:
            return Result(outcome: .applied, followUp: .revokeSessions, userID: userID)
        case .accountDeleted:
            return Result(outcome: .applied, followUp: try await Self.removeIdentity(notification.subject, of: userID, on: connection), userID: userID)
        case .emailForwarding(let forwarding):
            // Apple may deliver the two events out of order: one older than the last applied
            // (by event_time) changes nothing. An event without a time is applied as it comes.
            try await connection.execute(
                """
                UPDATE identity.identities
                SET email_forwarding = $2, email_forwarding_changed_at = COALESCE($3::timestamptz, email_forwarding_changed_at)
                WHERE provider = 'apple' AND subject = $1
                  AND ($3::timestamptz IS NULL OR email_forwarding_changed_at IS NULL OR email_forwarding_changed_at <= $3::timestamptz)
                """,
                [.text(notification.subject), .bool(forwarding), notification.eventTime.map { .timestamp($0) } ?? .null])
            return Result(outcome: .applied, followUp: .none, userID: userID)
        case .unknown:
            return Result(outcome: .unknownType, followUp: .none, userID: nil)
        }
    }

    /// Removes the deleted Apple account's identity; with it the user when it was their only
    /// one. Nothing goes to the Apple revocation outbox: the account no longer exists at Apple.
    private static func removeIdentity(
        _ subject: String, of userID: UUID, on connection: PostgresConnection
    ) async throws -> AppleNotificationFollowUp {
        _ = try await connection.query("SELECT id FROM identity.users WHERE id = $1 FOR UPDATE", [.uuid(userID)])
        let others = try await connection.query(
            "SELECT 1 FROM identity.identities WHERE user_id = $1 AND NOT (provider = 'apple' AND subject = $2)",
            [.uuid(userID), .text(subject)])
        guard !others.isEmpty else {
            try await connection.execute("DELETE FROM identity.users WHERE id = $1", [.uuid(userID)])
            return .deleteAccount
        }
        try await connection.execute(
            "DELETE FROM identity.identities WHERE provider = 'apple' AND subject = $1", [.text(subject)])
        try await connection.execute("UPDATE identity.users SET updated_at = now() WHERE id = $1", [.uuid(userID)])
        return .revokeSessions
    }
}
