import Foundation
import IdentityAPI
import ServiceProtocol
import TokensAPI

/// A sign-in that carried a guest's access token (DESIGN.md section 9.1): identity says whether
/// the guest became the identity's user (upgrade in place: same id, its sessions go on) or the
/// identity belongs to another user, whose account the guest's state merges into.
struct GuestSignInFlow: Sendable {
    let orchestration: Orchestration
    let backends: Backends

    func signIn(
        credential: ProviderCredential, deviceName: String?, guest: Caller, verdict: RevocationChecker.Verdict,
        context: GatewayRequestContext
    ) async throws -> TokenResponse {
        switch verdict {
        case .live:
            break
        case .revoked(reason: "deactivated"):
            throw APIError(.forbidden, .userInactive, "This account is deactivated")
        case .revoked:
            throw APIError.sessionRevoked
        }
        let result: GuestSignInResult
        do {
            result = try await self.orchestration.changingUser(guest.userID) {
                try await self.backends.identity.call(
                    Identity.signInGuest, LinkParams(userID: guest.userID, credential: credential),
                    options: Backends.options(context, idempotent: true))
            }
        } catch let error as RPCError where error.code == .notFound {
            // The guest is gone (deleted) though its token still verifies: sign in again.
            throw APIError.sessionRevoked
        }
        switch result.outcome {
        case .upgraded:
            let pair = try await self.issue(result.user, deviceName: deviceName, context: context)
            GuestMetrics.upgraded.increment()
            context.logger.info("Guest upgraded", metadata: ["guest.user.id": "\(guest.userID)"])
            return TokenResponse(pair: pair, user: result.user, isNewUser: false, upgradedGuest: true)
        case .merge:
            throw APIError(.conflict, .identityAlreadyLinked, "This sign-in belongs to another account")
        }
    }

    /// Opens a session for `user` (not idempotent: sent once).
    private func issue(_ user: User, deviceName: String?, context: GatewayRequestContext) async throws -> TokenPair {
        try await self.backends.tokens.call(
            Tokens.issue, IssueParams(userID: user.id, isAdmin: user.isAdmin, deviceName: deviceName),
            options: Backends.options(context, idempotent: false))
    }
}
