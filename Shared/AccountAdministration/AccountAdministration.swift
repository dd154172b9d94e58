import ContentStateAPI
import FoundationEssentials
import IdentityAPI
import ServiceProtocol
import TokensAPI

/// What an operator does to an account, each step across the backends it spans: the admin API
/// of the gateway and the `latchkey` operator CLI both call these, so an account is deleted or
/// deactivated the same way whichever tool asks. Every call is idempotent, so a retry after a
/// failure half way completes the operation.
public struct AccountAdministration: Sendable {
    public let identity: RPCClient
    public let tokens: RPCClient
    public let contentState: RPCClient

    public init(identity: RPCClient, tokens: RPCClient, contentState: RPCClient) {
        self.identity = identity
        self.tokens = tokens
        self.contentState = contentState
    }

    /// `origin`: the end user the operator's request came from, for the audit trail.
    static func options(_ requestID: String?, origin: RPCCallOrigin? = nil) -> RPCClient.CallOptions {
        RPCClient.CallOptions(idempotent: true, requestID: requestID, origin: origin)
    }

    public func user(_ userID: UUID, requestID: String? = nil) async throws -> User {
        try await self.identity.call(Identity.getUser, UserIDParams(userID: userID), options: Self.options(requestID))
    }

    public func listUsers(_ params: ListUsersParams, requestID: String? = nil) async throws -> ListUsersResult {
        try await self.identity.call(Identity.listUsers, params, options: Self.options(requestID))
    }

    /// No more sign-ins, links or refreshes, and every session and access token dead at once
    /// (`tokens.revokeUser`, reason `deactivated`: live tokens get `user_inactive`).
    public func deactivate(_ userID: UUID, requestID: String? = nil, origin: RPCCallOrigin? = nil) async throws -> User {
        let options = Self.options(requestID, origin: origin)
        let user = try await self.identity.call(Identity.setActive, SetActiveParams(userID: userID, active: false), options: options)
        _ = try await self.tokens.call(Tokens.revokeUser, RevokeUserParams(userID: userID, reason: .deactivated), options: options)
        return user
    }

    /// Signing in works again (sessions revoked by the deactivation stay revoked).
    public func activate(_ userID: UUID, requestID: String? = nil, origin: RPCCallOrigin? = nil) async throws -> User {
        try await self.identity.call(
            Identity.setActive, SetActiveParams(userID: userID, active: true), options: Self.options(requestID, origin: origin))
    }

    /// Ends every session of the user; `not_found` for a user that does not exist.
    public func revokeSessions(_ userID: UUID, requestID: String? = nil, origin: RPCCallOrigin? = nil) async throws -> RevokeAllResult {
        _ = try await self.user(userID, requestID: requestID)
        return try await self.tokens.call(
            Tokens.revokeAll, RevokeAllParams(userID: userID, cause: .admin), options: Self.options(requestID, origin: origin))
    }

    /// Grants the admin role: `adm: true` in the access tokens of the sessions opened from now on.
    public func grantAdmin(_ userID: UUID, requestID: String? = nil) async throws -> User {
        try await self.identity.call(Identity.setAdmin, SetAdminParams(userID: userID, admin: true), options: Self.options(requestID))
    }

    /// Takes the admin role back and ends the user's sessions, whose tokens still say `adm`.
    public func revokeAdmin(_ userID: UUID, requestID: String? = nil) async throws -> User {
        let user = try await self.identity.call(
            Identity.setAdmin, SetAdminParams(userID: userID, admin: false), options: Self.options(requestID))
        _ = try await self.tokens.call(Tokens.revokeAll, RevokeAllParams(userID: userID, cause: .admin), options: Self.options(requestID))
        return user
    }

    /// Deletes a guest everywhere as `delete` does, but only while it is a guest: identity
    /// refuses (false) a user who signed in meanwhile and is no guest any more. A guest that
    /// identity no longer has (a deletion that failed half way) is completed.
    public func deleteGuest(_ userID: UUID, requestID: String? = nil) async throws -> Bool {
        let options = Self.options(requestID)
        do {
            let result = try await self.identity.call(
                Identity.deleteGuest, DeleteUserParams(userID: userID, by: .guestExpired), options: options)
            guard result.deleted else { return false }
        } catch let error as RPCError where error.code == .notFound {}
        _ = try await self.tokens.call(Tokens.revokeUser, RevokeUserParams(userID: userID, reason: .deleted), options: options)
        _ = try await self.contentState.call(ContentState.userDelete, UserParams(userID: userID), options: options)
        return true
    }

    /// Deletes the user everywhere: the user and its identities (no more sign-ins or refreshes;
    /// identity revokes Apple's authorization), then every session and access token
    /// (`tokens.revokeUser`, reason `deleted`), then every item of content state. `by` is
    /// who asked, for the audit trail (whose record of the deletion keeps no personal data).
    public func delete(
        _ userID: UUID, by: DeleteUserParams.DeletedBy = .admin, requestID: String? = nil, origin: RPCCallOrigin? = nil
    ) async throws {
        let options = Self.options(requestID, origin: origin)
        _ = try await self.identity.call(Identity.deleteUser, DeleteUserParams(userID: userID, by: by), options: options)
        _ = try await self.tokens.call(Tokens.revokeUser, RevokeUserParams(userID: userID, reason: .deleted), options: options)
        _ = try await self.contentState.call(ContentState.userDelete, UserParams(userID: userID), options: options)
    }
}
