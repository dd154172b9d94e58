import ContentStateAPI
import FoundationEssentials
import Postgres

extension ContentStore {
    /// How many of the user's items are favorited, read and unliked now (tombstones count for
    /// none of them).
    func counts(user: UUID) async throws -> UserContentCounts {
        let rows = try await postgres.query(
            """
            SELECT count(*) FILTER (WHERE favorited_at IS NOT NULL) AS favorites,
                   count(*) FILTER (WHERE read_at IS NOT NULL) AS read,
                   count(*) FILTER (WHERE unliked_at IS NOT NULL) AS unlikes
            FROM content.item_states WHERE user_id = $1
            """, [.uuid(user)])
        return UserContentCounts(
            favorites: try rows[0].decode("favorites", as: Int.self), read: try rows[0].decode("read", as: Int.self),
            unlikes: try rows[0].decode("unlikes", as: Int.self))
    }
}
