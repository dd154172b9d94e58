import AccountAdministration
import FoundationEssentials
import IdentityAPI
import Logging
import ServiceProtocol
import TextCoding
import TokensAPI

/// The calls that span backends: sign-in (identity, then tokens), refresh (tokens, then the
/// user from identity), and what an operator or the user does to an account (through
/// `AccountAdministration`). Each step is idempotent, so retrying a call that failed half way
/// completes it.
struct Orchestration: Sendable {
    let backends: Backends
    /// This gateway's cached live verdicts, dropped for a user as soon as this gateway revoked
    /// something of theirs (other gateways drop theirs on the message `tokens` publishes).
    let revocationCache: RevocationCache?
    /// This gateway's kept users, dropped for a user as soon as this gateway changed them
    /// (other gateways drop theirs on the message identity publishes).
    let userCache: UserCache?

    private var administration: AccountAdministration { self.backends.administration }

    /// Calls one of tokens' revocation methods (idempotent, so it may be retried on another
    /// replica), then forgets the user's cached verdicts.
    @discardableResult
    func revoke<Params, Result>(
        _ method: RPCMethod<Params, Result>, _ params: Params, user: UUID, context: GatewayRequestContext
    ) async throws -> Result {
        defer { self.revocationCache?.forget(user: user) }
        return try await self.backends.tokens.call(method, params, options: Backends.options(context, idempotent: true, audited: true))
    }

    /// Appends `sessions.revoked` to identity's feed for other services (DESIGN.md section 9.4)
    /// after tokens revoked every session of `user`. The event is named by a fresh id, so the
    /// client's retries of the call append it once; the feed lives in identity and the
    /// revocation in tokens, so a gateway that dies between the two loses this one event (the
    /// revocation stands, and a repeated logout announces it).
    func announceSessionsRevoked(_ user: UUID, reason: String, context: GatewayRequestContext) async throws {
        _ = try await self.backends.identity.call(
            Identity.eventsSessionsRevoked, SessionsRevokedParams(id: .random(), userID: user, reason: reason),
            options: Backends.options(context, idempotent: true))
    }

    /// Verifies the provider credential with identity, then opens a session with tokens.
    func signIn(credential: ProviderCredential, deviceName: String?, context: GatewayRequestContext) async throws -> TokenResponse {
        let signIn = try await self.backends.identity.call(
            Identity.signIn, credential, options: Backends.options(context, idempotent: true))
        // A known user's sign-in may have changed their email or name.
        self.userChanged(signIn.user.id)
        // Not idempotent (a retry would open a second session): sent once.
        let pair = try await self.backends.tokens.call(
            Tokens.issue,
            IssueParams(
                userID: signIn.user.id, isAdmin: signIn.user.isAdmin, deviceName: deviceName, dpopJKT: context.deviceKey,
                signIn: SignInFacts(provider: credential.provider.rawValue, newUser: signIn.isNewUser)),
            options: Backends.options(context, idempotent: false, audited: true))
        return TokenResponse(pair: pair, user: signIn.user, isNewUser: signIn.isNewUser)
    }

    /// Makes a guest user with identity, then opens its first session (DESIGN.md section 9.1).
    func createGuest(deviceName: String?, context: GatewayRequestContext) async throws -> TokenResponse {
        let user = try await self.backends.identity.call(
            Identity.createGuest, Empty(), options: Backends.options(context, idempotent: false, audited: true))
        let pair = try await self.backends.tokens.call(
            Tokens.issue, IssueParams(userID: user.id, isAdmin: false, deviceName: deviceName, dpopJKT: context.deviceKey),
            options: Backends.options(context, idempotent: false))
        GuestMetrics.created.increment()
        return TokenResponse(pair: pair, user: user, isNewUser: true)
    }

    /// Rotates the refresh token, then reads the user for the response. A user that no longer
    /// exists makes the token invalid; an inactive one gets `user_inactive`.
    func refresh(refreshToken: String, context: GatewayRequestContext) async throws -> TokenResponse {
        // Idempotent within the reuse grace window: every retry gets the identical pair.
        let pair: TokenPair
        do {
            pair = try await self.backends.tokens.call(
                Tokens.refresh, RefreshParams(refreshToken: refreshToken, dpopJKT: context.deviceKey),
                options: Backends.options(context, idempotent: true, audited: true))
        } catch let error as RPCError where error.code == .refreshTokenReused {
            // tokens revoked the whole session without saying whose it was: drop every cached
            // verdict now rather than wait for the message.
            self.revocationCache?.forgetAll()
            throw error
        }
        let user: User
        do {
            user = try await self.user(pair.userID, context: context)
        } catch let error as RPCError where error.code == .notFound {
            throw APIError(.unauthorized, .invalidRefreshToken, "Session expired, please sign in again")
        }
        guard user.isActive else { throw APIError(.forbidden, .userInactive, "This account is deactivated") }
        return TokenResponse(pair: pair, user: user, isNewUser: nil)
    }

    /// The user as identity describes them, from this gateway's cache when it holds them.
    func user(_ userID: UUID, context: GatewayRequestContext) async throws -> User {
        guard let cache = self.userCache else { return try await self.administration.user(userID, requestID: context.requestID) }
        if let user = cache.user(userID) { return user }
        let epoch = cache.epoch()
        let user = try await self.administration.user(userID, requestID: context.requestID)
        if let epoch { cache.store(user, epoch: epoch) }
        return user
    }

    /// Runs a call that changes `userID` in identity, then drops this gateway's copy of them
    /// (also when the call failed: it may have failed after the change).
    func changingUser<Result>(_ userID: UUID, _ call: () async throws -> Result) async throws -> Result {
        defer { self.userChanged(userID) }
        return try await call()
    }

    /// Drops this gateway's copy of a user that changed.
    func userChanged(_ userID: UUID) {
        self.userCache?.forget(user: userID)
    }

    /// Deletes a user everywhere (`AccountAdministration.delete`). A token revoked for deletion
    /// may still call the account deletion again, so that a retry after a failed last step
    /// completes it.
    func deleteUser(_ userID: UUID, by: DeleteUserParams.DeletedBy, context: GatewayRequestContext) async throws {
        defer {
            self.revocationCache?.forget(user: userID)
            self.userChanged(userID)
        }
        try await self.administration.delete(userID, by: by, requestID: context.requestID, origin: context.origin)
        context.logger.info("Account deleted", metadata: ["deleted.user.id": "\(userID.lowercasedText)"])
    }

    /// Deactivates a user (no sign-in, link or refresh) and kills every session and access
    /// token at once (their tokens get `user_inactive`).
    func deactivate(_ userID: UUID, context: GatewayRequestContext) async throws -> User {
        defer {
            self.revocationCache?.forget(user: userID)
            self.userChanged(userID)
        }
        return try await self.administration.deactivate(userID, requestID: context.requestID, origin: context.origin)
    }

    /// Lets a deactivated user sign in again.
    func activate(_ userID: UUID, context: GatewayRequestContext) async throws -> User {
        try await self.changingUser(userID) {
            try await self.administration.activate(userID, requestID: context.requestID, origin: context.origin)
        }
    }

    /// Ends every session of an existing user (`not_found` otherwise).
    func revokeSessions(_ userID: UUID, context: GatewayRequestContext) async throws -> RevokeAllResult {
        defer { self.revocationCache?.forget(user: userID) }
        let result = try await self.administration.revokeSessions(userID, requestID: context.requestID, origin: context.origin)
        try await self.announceSessionsRevoked(userID, reason: "admin", context: context)
        return result
    }
}
