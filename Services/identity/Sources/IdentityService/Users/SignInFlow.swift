import IdentityAPI
import FoundationEssentials
import Logging
import ServiceProtocol

/// Sign-in and explicit linking: verify the provider token, then find or create the user by
/// the linking rules (DESIGN.md section 5), then keep Apple's refresh token if a code came along.
struct SignInFlow: Sendable {
    let verifiers: ProviderVerifiers
    let identities: IdentityStore
    let users: UserStore
    let autoLinkByEmail: Bool
    let appleAuthorizations: AppleAuthorizations?
    let logger: Logger

    /// A sign-in's answer, and whether it changed a user who existed before it (their email,
    /// name or providers): what identity announces to the gateways that keep users.
    struct Outcome {
        var result: SignInResult
        var changedExistingUser: Bool
    }

    func signIn(_ credential: ProviderCredential, context: RPCRequestContext? = nil) async throws -> Outcome {
        let credential = try credential.validated()
        let identity = try await self.verify(credential)
        var (user, isNew, changed) = try await self.resolve(identity, fallbackEmail: credential.email, context: context)
        guard user.isActive else { throw IdentityError.userInactive }
        if user.displayName == nil, let name = identity.name, try await self.users.fillDisplayName(user.id, name) {
            user = try await self.users.user(user.id) ?? user
            changed = true
        }
        await self.keepAppleAuthorization(credential, identity)
        return Outcome(result: SignInResult(user: user, isNewUser: isNew), changedExistingUser: changed && !isNew)
    }

    /// A sign-in that carried the access token of `guest` (DESIGN.md section 9.1). An identity
    /// that already belongs to `guest` answers `upgraded` again (a repeat); otherwise `guest`
    /// must be a guest. A known (or auto-linked) identity names the user to merge into; an
    /// unknown one becomes the guest's, which stops being a guest.
    func signIn(_ credential: ProviderCredential, asGuest guest: UUID, context: RPCRequestContext? = nil) async throws -> GuestSignInResult {
        let credential = try credential.validated()
        let identity = try await self.verify(credential)
        for _ in 0..<3 {
            let known = try await self.identities.signInKnown(identity)
            if let known, known.user.id == guest { return GuestSignInResult(user: known.user, outcome: .upgraded) }
            guard let current = try await self.users.user(guest) else { throw IdentityError.userNotFound }
            guard current.isGuest else { throw IdentityError.notAGuest }
            if let known {
                guard known.user.isActive else { throw IdentityError.userInactive }
                return GuestSignInResult(user: known.user, outcome: .merge)
            }
            switch try await self.identities.signInNew(
                identity, linkByEmail: self.autoLinkByEmail, fallbackEmail: credential.email, intoGuest: guest, context: context)
            {
            case .alreadyExists:
                continue
            case .linkedToExisting(let id):
                guard let user = try await self.users.user(id) else { continue }
                return GuestSignInResult(user: user, outcome: .merge)
            case .createdUser(let id):
                await self.keepAppleAuthorization(credential, identity)
                guard let user = try await self.users.user(id) else { throw IdentityError.userNotFound }
                return GuestSignInResult(user: user, outcome: .upgraded)
            }
        }
        throw IdentityError.signInContended
    }

    func link(_ credential: ProviderCredential, to userID: UUID, context: RPCRequestContext? = nil) async throws -> User {
        let credential = try credential.validated()
        let identity = try await self.verify(credential)
        try await self.identities.link(identity, to: userID, context: context)
        await self.keepAppleAuthorization(credential, identity)
        guard let user = try await self.users.userWithIdentities(userID) else { throw IdentityError.userNotFound }
        return user
    }

    /// Verifies the credential, logging why a token was refused (callers only learn that it was).
    private func verify(_ credential: ProviderCredential) async throws(IdentityError) -> VerifiedIdentity {
        do {
            return try await self.verifiers.verify(credential)
        } catch {
            switch error {
            case .invalidToken(let reason):
                self.logger.info(
                    "Refused provider token", metadata: ["provider": "\(credential.provider)", "reason": "\(reason)"])
            case .providerUnavailable(let provider, let reason):
                self.logger.warning("Provider unavailable", metadata: ["provider": "\(provider)", "reason": "\(reason)"])
            default:
                break
            }
            throw error
        }
    }

    /// A known identity signs into its user; a new one joins a user by verified email or makes
    /// one. Returns the user, whether it is new, and whether an existing user changed.
    private func resolve(
        _ identity: VerifiedIdentity, fallbackEmail: String?, context: RPCRequestContext?
    ) async throws -> (User, isNew: Bool, changed: Bool) {
        for _ in 0..<3 {
            if let known = try await self.identities.signInKnown(identity) { return (known.user, false, known.changedUser) }
            let outcome = try await self.identities.signInNew(
                identity, linkByEmail: self.autoLinkByEmail, fallbackEmail: fallbackEmail, context: context)
            switch outcome {
            case .alreadyExists:
                continue
            case .linkedToExisting(let id):
                if let user = try await self.users.user(id) { return (user, false, true) }
            case .createdUser(let id):
                if let user = try await self.users.user(id) { return (user, true, false) }
            }
        }
        throw IdentityError.signInContended
    }

    private func keepAppleAuthorization(_ credential: ProviderCredential, _ identity: VerifiedIdentity) async {
        guard identity.provider == .apple, let code = credential.authorizationCode, let apple = self.appleAuthorizations
        else { return }
        await apple.exchangeAndStore(code: code, for: identity)
    }
}

/// Exchanges Apple authorization codes and stores the refresh tokens sealed. Best effort: a
/// failed exchange is logged and the sign-in goes on (the identity token already proved who it
/// is). A refresh token is kept only when the id token of its exchange names the user who
/// signed in: a code from someone else's sign-in, sent along with one's own identity token,
/// would otherwise tie that person's Apple grant to this account.
struct AppleAuthorizations: Sendable {
    let client: AppleTokenClient
    let cipher: RefreshTokenCipher
    let identities: IdentityStore
    let verifier: AppleIdentityVerifier
    let logger: Logger

    func exchangeAndStore(code: String, for identity: VerifiedIdentity) async {
        do {
            guard let exchange = try await self.client.exchange(code: code, clientID: identity.audience),
                let refreshToken = exchange.refreshToken
            else {
                self.logger.warning("Apple refused the authorization code", metadata: ["provider": "apple"])
                return
            }
            guard let idToken = exchange.idToken else {
                self.logger.warning("Apple's code exchange returned no id token; its refresh token is not kept", metadata: ["provider": "apple"])
                return
            }
            let owner = try await self.verifier.exchangedIdentity(idToken)
            guard owner.subject == identity.subject, owner.audience == identity.audience else {
                self.logger.warning(
                    "The Apple authorization code belongs to another sign-in; its refresh token is not kept", metadata: ["provider": "apple"])
                return
            }
            try await self.identities.storeAppleRefreshToken(
                subject: identity.subject, sealed: try self.cipher.seal(refreshToken), clientID: identity.audience)
        } catch {
            self.logger.warning("Apple authorization code exchange failed", metadata: ["error": "\(error)"])
        }
    }
}
