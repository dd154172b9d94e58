import ContentStateAPI
import FoundationEssentials
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
        case .revoked(reason: UserRevocationReason.merged.rawValue):
            return try await self.repeatMerge(credential: credential, deviceName: deviceName, guest: guest.userID, context: context)
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
                    options: Backends.options(context, idempotent: true, audited: true))
            }
        } catch let error as RPCError where error.code == .notFound {
            // The guest is gone (deleted) though its token still verifies: sign in again.
            throw APIError.sessionRevoked
        }
        switch result.outcome {
        case .upgraded:
            let pair = try await self.issue(result.user, credential: credential, deviceName: deviceName, context: context)
            GuestMetrics.upgraded.increment()
            context.logger.info("Guest upgraded", metadata: ["guest.user.id": "\(guest.userID)"])
            return TokenResponse(pair: pair, user: result.user, isNewUser: false, upgradedGuest: true)
        case .merge:
            return try await self.merge(
                guest: guest.userID, into: result.user, credential: credential, deviceName: deviceName, context: context)
        }
    }

    /// Merges the guest into `target`, each step idempotent so that a repeat completes it: the
    /// guest's sessions die first (`tokens.revokeUser`, reason `merged`: a repeat is known by
    /// it), then content-state merges its state in one transaction and records the merge, then
    /// identity deletes the guest, and the target gets a session.
    private func merge(
        guest: UUID, into target: User, credential: ProviderCredential, deviceName: String?, context: GatewayRequestContext
    ) async throws -> TokenResponse {
        try await self.orchestration.revoke(
            Tokens.revokeUser, RevokeUserParams(userID: guest, reason: .merged), user: guest, context: context)
        let merged = try await self.backends.contentState.call(
            ContentState.userMerge, UserMergeParams(userID: guest, intoUserID: target.id),
            options: Backends.options(context, idempotent: true))
        guard merged.intoUserID == target.id else {
            // This guest was merged into another account already: its token is spent.
            throw APIError.sessionRevoked
        }
        _ = try await self.orchestration.changingUser(guest) {
            try await self.backends.identity.call(
                Identity.deleteUser, DeleteUserParams(userID: guest, by: .merged, mergedInto: target.id),
                options: Backends.options(context, idempotent: true, audited: true))
        }
        // What the guest may have written between its revocation and the merge.
        _ = try await self.backends.contentState.call(
            ContentState.userDelete, UserParams(userID: guest), options: Backends.options(context, idempotent: true))
        let pair = try await self.issue(target, credential: credential, deviceName: deviceName, context: context)
        GuestMetrics.merged.increment()
        context.logger.info(
            "Guest merged", metadata: ["guest.user.id": "\(guest)", "user.id": "\(target.id)"])
        return TokenResponse(pair: pair, user: target, isNewUser: false, mergedGuest: merged.changed)
    }

    /// The same sign-in again with the guest's token, now revoked for its merge (the first
    /// answer was lost, or a step after the revocation failed): the credential signs into its
    /// user as any sign-in, and the merge completes or answers what it recorded. Never a second
    /// merge: content-state answers a recorded one as it was.
    private func repeatMerge(
        credential: ProviderCredential, deviceName: String?, guest: UUID, context: GatewayRequestContext
    ) async throws -> TokenResponse {
        let signIn = try await self.backends.identity.call(
            Identity.signIn, credential, options: Backends.options(context, idempotent: true))
        self.orchestration.userChanged(signIn.user.id)
        guard signIn.user.isActive else { throw APIError(.forbidden, .userInactive, "This account is deactivated") }
        return try await self.merge(guest: guest, into: signIn.user, credential: credential, deviceName: deviceName, context: context)
    }

    /// Opens a session for `user` (not idempotent: sent once).
    private func issue(
        _ user: User, credential: ProviderCredential, deviceName: String?, context: GatewayRequestContext
    ) async throws -> TokenPair {
        try await self.backends.tokens.call(
            Tokens.issue,
            IssueParams(
                userID: user.id, isAdmin: user.isAdmin, deviceName: deviceName, dpopJKT: context.deviceKey,
                signIn: SignInFacts(provider: credential.provider.rawValue, newUser: false)),
            options: Backends.options(context, idempotent: false, audited: true))
    }
}
