import AuditAPI
import AuditTrail
import ServiceProtocol
import TokensAPI
import FoundationEssentials

/// Revoking sessions: Postgres first (the source of truth), then the Redis copy and its channel.
struct SessionRevocation: Sendable {
    let sessions: SessionStore
    let revocations: RevocationList
    let clock: TokenClock

    func revoke(sessionID: UUID, userID: UUID, cause: RevocationCause = .logout, context: RPCRequestContext? = nil) async throws -> RevokeResult {
        let now = self.clock.now()
        let event =
            cause == .logout
            ? AuditEntry(.logout, userID: userID, context: context, details: ["scope": .string("local")])
            : AuditEntry(.sessionRevoked, userID: userID, context: context, details: ["reason": .string(cause == .admin ? "admin" : "user")])
        guard
            let revoked = try await self.sessions.revoke(
                sessionID: sessionID, userID: userID, reason: "logout", now: now, event: event)
        else {
            throw TokenError.sessionNotFound
        }
        if revoked {
            await self.revocations.record([.session(sessionID, userID: userID, reason: "logout", revokedAt: now)], now: now)
        }
        return RevokeResult(revoked: revoked)
    }

    func revokeAll(userID: UUID, except: UUID?, cause: RevocationCause = .logout, context: RPCRequestContext? = nil) async throws -> RevokeAllResult {
        let now = self.clock.now()
        let reason = except == nil ? "logout_all" : "logout_others"
        let event =
            cause == .admin
            ? AuditEntry(.sessionsRevokedByAdmin, userID: userID, context: context)
            : AuditEntry(.logout, userID: userID, context: context, details: ["scope": .string(except == nil ? "global" : "others")])
        let ids = try await self.sessions.revokeAll(userID: userID, except: except, reason: reason, now: now, event: event)
        await self.revocations.record(ids.map { .session($0, userID: userID, reason: reason, revokedAt: now) }, now: now)
        return RevokeAllResult(revokedSessions: ids.count)
    }

    /// Deactivation or deletion: a per-user not-before (rounded up to the next millisecond, so
    /// every token issued before now has a smaller `iat`, and one issued a millisecond later,
    /// after a reactivation, does not) and every session revoked.
    func revokeUser(userID: UUID, reason: UserRevocationReason, context: RPCRequestContext? = nil) async throws -> RevokeUserResult {
        let now = self.clock.now()
        let notBeforeMilliseconds = RevocationKeys.milliseconds(now, rounding: .up)
        let notBefore = Date(timeIntervalSince1970: Double(notBeforeMilliseconds) / 1000)
        // A deactivation is recorded; a deletion or merge forgets the user's events instead.
        let event =
            reason == .deactivated
            ? AuditEntry(.sessionRevoked, userID: userID, context: context, details: ["reason": .string(reason.rawValue)]) : nil
        let ids = try await self.sessions.revokeUser(
            userID: userID, reason: reason.rawValue, notBefore: notBefore, now: now, event: event)
        await self.revocations.record(
            [.user(userID, notBefore: notBefore)]
                + ids.map { .session($0, userID: userID, reason: reason.rawValue, revokedAt: now) },
            now: now)
        return RevokeUserResult(revokedSessions: ids.count, notBefore: Double(notBeforeMilliseconds) / 1000)
    }
}
