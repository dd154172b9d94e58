import Foundation
import Postgres
import ServiceProtocol
import TestSupport
import Testing

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
        let userID = user.uuidString.lowercased()
        switch service {
        case "content-state":
            _ = try await client.call("content.favorites.put", ["user_id": userID, "item_id": "first"], as: Favorite.self)
            return SlowRequest(
                lockSQL: "SELECT user_id FROM content.user_versions WHERE user_id = $1 FOR UPDATE", bindings: [.uuid(user)]
            ) {
                let favorite = try await client.call("content.favorites.put", ["user_id": userID, "item_id": "in-flight"], as: Favorite.self)
                #expect(favorite.itemID == "in-flight")
            }
        case "tokens":
            let pair = try await client.call("tokens.issue", ["user_id": userID], as: OpsEndpointTests.Pair.self)
            let session = try #require(UUID(uuidString: pair.sessionID))
            return SlowRequest(
                lockSQL: "SELECT id FROM tokens.sessions WHERE id = $1 FOR UPDATE", bindings: [.uuid(session)]
            ) {
                let revoked = try await client.call(
                    "tokens.revoke", ["user_id": userID, "session_id": pair.sessionID], as: [String: Bool].self)
                #expect(revoked == ["revoked": true])
            }
        case "identity":
            try await withTestDatabase { postgres in
                _ = try await postgres.execute("INSERT INTO identity.users (id) VALUES ($1)", [.uuid(user)])
            }
            return SlowRequest(
                lockSQL: "SELECT id FROM identity.users WHERE id = $1 FOR UPDATE", bindings: [.uuid(user)]
            ) {
                let updated = try await client.call(
                    "identity.setActive", SetActive(userID: userID, active: false), as: User.self)
                #expect(updated.isActive == false)
            }
        default:
            throw UnknownService(name: service)
        }
    }

    struct UnknownService: Error { var name: String }

    struct Favorite: Decodable {
        var itemID: String
        enum CodingKeys: String, CodingKey { case itemID = "item_id" }
    }

    struct SetActive: Encodable {
        var userID: String
        var active: Bool
        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case active
        }
    }

    struct User: Decodable {
        var isActive: Bool
        enum CodingKeys: String, CodingKey { case isActive = "is_active" }
    }
}
