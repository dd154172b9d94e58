import ContentStateAPI
import Foundation
import IdentityAPI
import Postgres
import ServiceProtocol
import TestSupport
import Testing
import TokensAPI

/// A real call of a backend that touches one row, with the statement that locks that row: a
/// test holds the lock to keep the call in flight (see `HeldRowLock`).
struct SlowRequest: Sendable {
    var lockSQL: String
    var bindings: [PostgresValue]
    /// Makes the call and checks its answer.
    var call: @Sendable () async throws -> Void

    /// Creates what the call needs (a user, a session, a user's state row) through the service.
    static func prepare(for service: String, client: RPCClient) async throws -> SlowRequest {
        let user = UUID()
        switch service {
        case "content-state":
            _ = try await client.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "first"))
            return SlowRequest(
                lockSQL: "SELECT user_id FROM content.user_versions WHERE user_id = $1 FOR UPDATE", bindings: [.uuid(user)]
            ) {
                let favorite = try await client.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "in-flight"))
                #expect(favorite.itemID == "in-flight")
            }
        case "tokens":
            let pair = try await client.call(Tokens.issue, IssueParams(userID: user))
            return SlowRequest(
                lockSQL: "SELECT id FROM tokens.sessions WHERE id = $1 FOR UPDATE", bindings: [.uuid(pair.sessionID)]
            ) {
                let revoked = try await client.call(Tokens.revoke, RevokeParams(userID: user, sessionID: pair.sessionID))
                #expect(revoked.revoked)
            }
        case "identity":
            try await withTestDatabase { postgres in
                _ = try await postgres.execute("INSERT INTO identity.users (id) VALUES ($1)", [.uuid(user)])
            }
            return SlowRequest(
                lockSQL: "SELECT id FROM identity.users WHERE id = $1 FOR UPDATE", bindings: [.uuid(user)]
            ) {
                let updated = try await client.call(Identity.setActive, SetActiveParams(userID: user, active: false))
                #expect(updated.isActive == false)
            }
        default:
            throw UnknownService(name: service)
        }
    }

    struct UnknownService: Error { var name: String }
}
