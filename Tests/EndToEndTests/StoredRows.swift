import Foundation
import Postgres
import TestSupport

/// What the database holds of one user, read behind the services' backs: what a test stored
/// before a deletion. What is left after it is `DeletionOracle`'s to judge.
struct StoredRows: Equatable, CustomStringConvertible {
    var users = 0
    var identities = 0
    var liveSessions = 0
    var itemStates = 0
    var userVersions = 0

    var description: String {
        "users \(users), identities \(identities), live sessions \(liveSessions), item states \(itemStates), user versions \(userVersions)"
    }

    static func of(user userID: String) async throws -> StoredRows {
        guard let user = UUID(uuidString: userID) else { throw StackError.unexpected("not a user id: \(userID)") }
        return try await withTestDatabase { postgres in
            func count(_ sql: String) async throws -> Int {
                try await postgres.query("SELECT count(*) AS n FROM \(sql)", [.uuid(user)])[0].decode("n", as: Int.self)
            }
            return StoredRows(
                users: try await count("identity.users WHERE id = $1"),
                identities: try await count("identity.identities WHERE user_id = $1"),
                liveSessions: try await count("tokens.sessions WHERE user_id = $1 AND revoked_at IS NULL"),
                itemStates: try await count("content.item_states WHERE user_id = $1"),
                userVersions: try await count("content.user_versions WHERE user_id = $1"))
        }
    }
}
