import Foundation
import Logging
import NIOCore
import ServiceProtocol

/// The calls that span backends: sign-in (identity, then tokens), refresh (tokens, then the
/// user from identity), and account deletion (identity, tokens, content-state). Each step is
/// idempotent, so retrying a call that failed half way completes it.
struct Orchestration: Sendable {
    let backends: Backends
    /// This gateway's cached live verdicts, dropped for a user as soon as this gateway revoked
    /// something of theirs (other gateways drop theirs on the message `tokens` publishes).
    let revocationCache: RevocationCache?

    /// Calls one of tokens' revocation methods (idempotent, so it may be retried on another
    /// replica), then forgets the user's cached verdicts; returns the result as tokens sent it.
    @discardableResult
    func revoke(_ method: String, _ params: JSONObject, user: UUID, context: GatewayRequestContext) async throws -> ByteBuffer {
        defer { self.revocationCache?.forget(user: user) }
        return try await self.backends.tokens.callJSON(method, params: try params.encoded(), options: Backends.options(context, idempotent: true))
    }

    /// Verifies the provider credential with identity, then opens a session with tokens.
    func signIn(credential: JSONObject, deviceName: JSONValue?, context: GatewayRequestContext) async throws -> TokenResponse {
        let signIn = try await self.backends.identity.call(
            "identity.signIn", credential, as: SignInResult.self, options: Backends.options(context, idempotent: true))
        var issue: JSONObject = ["user_id": .string(signIn.user.id), "is_admin": .bool(signIn.user.isAdmin)]
        if let deviceName { issue["device_name"] = deviceName }
        // Not idempotent (a retry would open a second session): sent once.
        let pair = try await self.backends.tokens.call(
            "tokens.issue", issue, as: TokenPair.self, options: Backends.options(context, idempotent: false))
        return TokenResponse(pair: pair, user: signIn.user, isNewUser: signIn.isNewUser)
    }

    /// Rotates the refresh token, then reads the user for the response. A user that no longer
    /// exists makes the token invalid; an inactive one gets `user_inactive`.
    func refresh(refreshToken: JSONValue, context: GatewayRequestContext) async throws -> TokenResponse {
        // Idempotent within the reuse grace window: every retry gets the identical pair.
        let pair: TokenPair
        do {
            pair = try await self.backends.tokens.call(
                "tokens.refresh", ["refresh_token": refreshToken] as JSONObject, as: TokenPair.self,
                options: Backends.options(context, idempotent: true))
        } catch let error as RPCError where error.code == .refreshTokenReused {
            // tokens revoked the whole session without saying whose it was: drop every cached
            // verdict now rather than wait for the message.
            self.revocationCache?.forgetAll()
            throw error
        }
        let user: PublicUser
        do {
            user = try await self.user(pair.userID, context: context)
        } catch let error as RPCError where error.code == .notFound {
            throw APIError(.unauthorized, .invalidRefreshToken, "Session expired, please sign in again")
        }
        guard user.isActive else { throw APIError(.forbidden, .userInactive, "This account is deactivated") }
        return TokenResponse(pair: pair, user: user, isNewUser: nil)
    }

    func user(_ userID: String, context: GatewayRequestContext) async throws -> PublicUser {
        try await self.backends.identity.call(
            "identity.getUser", ["user_id": .string(userID)] as JSONObject, as: PublicUser.self,
            options: Backends.options(context, idempotent: true))
    }

    /// Deletes a user everywhere: the user and its identities (no more sign-ins or refreshes;
    /// Apple's authorization is revoked by identity), then every session and access token
    /// (`tokens.revokeUser`, reason `deleted`), then every item of content state. Each step is
    /// idempotent; a token revoked for deletion may still call the account deletion again so
    /// that a retry after a failed last step completes it.
    func deleteUser(_ userID: UUID, context: GatewayRequestContext) async throws {
        let id = JSONValue.string(userID.uuidString.lowercased())
        let options = Backends.options(context, idempotent: true)
        _ = try await self.backends.identity.call("identity.deleteUser", ["user_id": id] as JSONObject, as: Ignored.self, options: options)
        try await self.revoke("tokens.revokeUser", ["user_id": id, "reason": "deleted"], user: userID, context: context)
        _ = try await self.backends.contentState.call("content.user.delete", ["user_id": id] as JSONObject, as: Ignored.self, options: options)
        context.logger.info("Account deleted", metadata: ["deleted.user.id": "\(userID.uuidString.lowercased())"])
    }

    /// Deactivates a user (no sign-in, link or refresh) and kills every session and access
    /// token at once (`tokens.revokeUser`, reason `deactivated`: its tokens get `user_inactive`).
    func deactivate(_ userID: UUID, context: GatewayRequestContext) async throws -> PublicUser {
        let id = JSONValue.string(userID.uuidString.lowercased())
        let options = Backends.options(context, idempotent: true)
        let user = try await self.backends.identity.call(
            "identity.setActive", ["user_id": id, "active": .bool(false)] as JSONObject, as: PublicUser.self, options: options)
        try await self.revoke("tokens.revokeUser", ["user_id": id, "reason": "deactivated"], user: userID, context: context)
        return user
    }
}
