import ContentStateAPI
import FoundationEssentials
import Postgres
import ServiceProtocol

extension ContentStore {
    /// One page of the user's favorites in `order`, after `cursor`, as JSON written from its rows.
    func favorites(user: UUID, order: FavoritesOrder, limit: Int, after cursor: PageCursor?) async throws -> RawJSON {
        var parameters: [String?] = [String(limit + 1)]
        if let cursor { parameters += [String(cursor.key), cursor.itemID ?? ""] }
        let rows = try await read(.favorites(order, afterCursor: cursor != nil), user: user, parameters)
        return try FavoritesPage.rawJSON(rows: rows, limit: limit, order: order)
    }

    static let favoriteColumns = "item_id, nickname, position, sort_position, favorited_at"

    /// Most recently favorited first; ties (same millisecond) by item id, descending.
    static let favoritesRecentFirst = ReadStatement("""
        SELECT \(favoriteColumns) FROM content.item_states
        WHERE user_id = $1 AND favorited_at IS NOT NULL
        ORDER BY favorited_at DESC, item_id DESC
        LIMIT $2
        """, types: ["uuid", "bigint"], rowOrder: [.time("favorited_at", descending: true), .text("item_id", descending: true)])

    static let favoritesRecentAfter = ReadStatement("""
        SELECT \(favoriteColumns) FROM content.item_states
        WHERE user_id = $1 AND favorited_at IS NOT NULL
            AND (favorited_at, item_id) < (to_timestamp($3::bigint / 1000.0), $4::text)
        ORDER BY favorited_at DESC, item_id DESC
        LIMIT $2
        """, types: ["uuid", "bigint", "bigint", "text"], rowOrder: [.time("favorited_at", descending: true), .text("item_id", descending: true)])

    /// Lowest position first, favorites without a position last; ties by item id.
    static let favoritesByPositionFirst = ReadStatement("""
        SELECT \(favoriteColumns) FROM content.item_states
        WHERE user_id = $1 AND favorited_at IS NOT NULL
        ORDER BY sort_position, item_id
        LIMIT $2
        """, types: ["uuid", "bigint"], rowOrder: [.integer("sort_position"), .text("item_id")])

    static let favoritesByPositionAfter = ReadStatement("""
        SELECT \(favoriteColumns) FROM content.item_states
        WHERE user_id = $1 AND favorited_at IS NOT NULL
            AND (sort_position, item_id) > ($3::bigint, $4::text)
        ORDER BY sort_position, item_id
        LIMIT $2
        """, types: ["uuid", "bigint", "bigint", "text"], rowOrder: [.integer("sort_position"), .text("item_id")])
}
