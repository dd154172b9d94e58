import FoundationEssentials
import IdentityAPI
import ServiceProtocol
import TokensAPI

/// `POST /api/v1/auth/apple/notifications`: identity verifies Apple's JWS and applies the event
/// to identities and users once (by `jti`); what it leaves to do across backends is done here,
/// then confirmed, so that Apple's retry of a notification whose follow-up failed completes it.
struct AppleNotificationFlow: Sendable {
    let orchestration: Orchestration

    func receive(payload: String, context: GatewayRequestContext) async throws {
        let identity = self.orchestration.backends.identity
        // Applied once per `jti`, so a retry on another replica is safe.
        let options = Backends.options(context, idempotent: true, audited: true)
        let applied = try await identity.call(Identity.appleNotification, AppleNotificationParams(payload: payload), options: options)
        if let userID = applied.userID { self.orchestration.userChanged(userID) }
        switch (applied.followUp, applied.userID) {
        case (.revokeSessions, let userID?):
            try await self.orchestration.revoke(Tokens.revokeAll, RevokeAllParams(userID: userID), user: userID, context: context)
        case (.deleteAccount, let userID?):
            try await self.orchestration.deleteUser(userID, by: .apple, context: context)
        default:
            return
        }
        _ = try await identity.call(
            Identity.completeAppleNotification, CompleteAppleNotificationParams(jti: applied.jti), options: options)
    }
}
