import Foundation

extension LatchkeyClient {
    /// Signs in with Apple (`POST /api/v1/auth/apple`): the gateway verifies the identity token,
    /// finds or creates the user and opens a session, which the client keeps.
    @discardableResult
    public func signIn(with credential: AppleCredential) async throws -> SignInResult {
        try await self.signIn("/api/v1/auth/apple", body: credential.body(deviceName: self.configuration.deviceName))
    }

    /// Signs in with Google (`POST /api/v1/auth/google`) with an ID token or an access token.
    @discardableResult
    public func signIn(with credential: GoogleCredential) async throws -> SignInResult {
        try await self.signIn("/api/v1/auth/google", body: credential.body(deviceName: self.configuration.deviceName))
    }

    /// Starts a guest account (`POST /api/v1/auth/guest`): a user without a provider, with a
    /// session the client keeps like any other. Favorites, read marks and unlikes work at once.
    /// A later ``signIn(with:)-(AppleCredential)`` or Google sign-in sends the guest's token by
    /// itself: the guest becomes that account (``SignInResult/upgradedGuest``), or, when the
    /// account exists already, its state is merged into it (``SignInResult/mergedGuest``).
    @discardableResult
    public func signInAsGuest() async throws -> SignInResult {
        var body: [String: JSONValue] = [:]
        body["device_name"] = self.configuration.deviceName.map(JSONValue.string)
        return try await self.signIn("/api/v1/auth/guest", body: body, bearer: nil)
    }

    /// A provider's sign-in: with the guest's access token when the client holds a guest's
    /// session, so that the gateway upgrades or merges the guest. When the gateway refuses that
    /// token (the guest's session ended), the sign-in goes again without it.
    private func signIn(_ path: String, body: [String: JSONValue]) async throws -> SignInResult {
        guard let guest = await self.guestTokens() else { return try await self.signIn(path, body: body, bearer: nil) }
        do {
            return try await self.signIn(path, body: body, bearer: guest.accessToken, bound: guest.isBound)
        } catch LatchkeyError.sessionRevoked, LatchkeyError.unauthorized, LatchkeyError.tokenExpired {
            return try await self.signIn(path, body: body, bearer: nil)
        }
    }

    /// With a device key the request carries a proof by it, and the session is bound to it.
    private func signIn(_ path: String, body: [String: JSONValue], bearer: String?, bound: Bool = false) async throws -> SignInResult {
        let reply = try await self.gateway.send("POST", path, body: body, bearer: bearer, bound: bound, provesKey: true, repeat: .once)
        let response = try GatewayConnection.decode(TokenResponse.self, from: reply)
        let receivedUptime = self.configuration.uptime()
        await self.session.signedIn(response.tokens(receivedAt: self.configuration.now()), receivedUptime: receivedUptime)
        return SignInResult(
            user: response.user, isNewUser: response.isNewUser ?? false, upgradedGuest: response.upgradedGuest ?? false,
            mergedGuest: response.mergedGuest)
    }

    /// The tokens of the guest this client is signed in as (refreshed first when due); nil when
    /// it holds no guest's session.
    private func guestTokens() async -> StoredTokens? {
        guard let tokens = try? await self.session.validTokens(), tokens.user.isGuest else { return nil }
        return tokens
    }

    /// Ends sessions (`POST /api/v1/auth/logout`). With ``SignOutScope/thisDevice`` or
    /// ``SignOutScope/everywhere`` the client forgets its tokens even when the gateway cannot
    /// be reached (the error is still thrown, after the local sign-out), and reports
    /// ``SignOutReason/signedOut``. Does nothing when not signed in.
    public func signOut(_ scope: SignOutScope = .thisDevice) async throws {
        guard try await self.session.isSignedIn() else { return }
        var failure: (any Error)?
        do {
            _ = try await self.authorized("POST", "/api/v1/auth/logout", body: ["scope": .string(scope.rawValue)], repeat: .once)
        } catch {
            failure = error
        }
        if scope != .otherDevices, try await self.session.isSignedIn() { try await self.session.signOut(.signedOut) }
        // A 401 means this session had already ended: signed out either way.
        if let failure {
            guard let error = failure as? LatchkeyError else { throw failure }
            if error.detail?.status != 401, error.notSignedIn == false { throw error }
        }
    }

    /// Deletes the account (`DELETE /api/v1/auth/account`): the user, every session and all
    /// content state. The client then reports ``SignOutReason/accountDeleted``. A retry after a
    /// failure completes a deletion that stopped half way.
    public func deleteAccount() async throws {
        _ = try await self.authorized("DELETE", "/api/v1/auth/account", repeat: .once)
        try await self.session.signOut(.accountDeleted)
    }

    /// The signed-in user as the gateway has them now (`GET /api/v1/auth/me`).
    public func currentUser() async throws -> User {
        let user = try await self.authorized(User.self, "GET", "/api/v1/auth/me")
        await self.session.update(user)
        return user
    }

    /// Links another provider's identity to the signed-in user. Throws
    /// ``LatchkeyError/identityAlreadyLinked(_:)`` when it belongs to another user.
    @discardableResult
    public func link(_ credential: LinkCredential) async throws -> User {
        let user = try await self.authorized(User.self, "POST", "/api/v1/auth/identities/\(credential.provider.rawValue)", body: credential.body,
            repeat: .once)
        await self.session.update(user)
        return user
    }

    /// Unlinks a provider from the signed-in user. Throws ``LatchkeyError/lastIdentity(_:)`` for
    /// the user's only one.
    @discardableResult
    public func unlink(_ provider: IdentityProvider) async throws -> User {
        let user = try await self.authorized(
            User.self, "DELETE", "/api/v1/auth/identities/\(GatewayConnection.pathSegment(provider.rawValue))", repeat: .once)
        await self.session.update(user)
        return user
    }

    /// The user's sessions (signed-in devices); ``DeviceSession/current`` marks this one.
    public func sessions() async throws -> [DeviceSession] {
        try await self.authorized(SessionList.self, "GET", "/api/v1/auth/sessions").sessions
    }

    /// Ends one of the user's sessions (another device). Throws ``LatchkeyError/notFound(_:)``
    /// for a session that is not the user's.
    public func deleteSession(id: String) async throws {
        _ = try await self.authorized("DELETE", "/api/v1/auth/sessions/\(GatewayConnection.pathSegment(id))", repeat: .once)
    }

    private struct SessionList: Decodable {
        var sessions: [DeviceSession]
    }
}

extension LatchkeyError {
    fileprivate var notSignedIn: Bool {
        if case .notSignedIn = self { return true }
        return false
    }
}
