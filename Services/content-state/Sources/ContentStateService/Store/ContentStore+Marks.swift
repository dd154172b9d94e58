import ContentStateAPI
import FoundationEssentials
import Postgres

/// The lists ordered by the time of a mark, most recent first: read items and unliked items.
enum MarkList: Hashable, Sendable {
    case read
    case unliked

    var cursorKind: PageCursor.Kind {
        switch self {
        case .read: .read
        case .unliked: .unliked
        }
    }

    /// The first page's statement and the statement for the pages after a cursor.
    var statements: (first: ReadStatement, after: ReadStatement) {
        switch self {
        case .read: (Self.readFirst, Self.readAfter)
        case .unliked: (Self.unlikedFirst, Self.unlikedAfter)
        }
    }

    static let readFirst = ReadStatement("""
        SELECT item_id, read_at AS marked_at FROM content.item_states
        WHERE user_id = $1 AND read_at IS NOT NULL
        ORDER BY read_at DESC, item_id DESC
        LIMIT $2
        """, types: ["uuid", "bigint"], rowOrder: [.time("marked_at", descending: true), .text("item_id", descending: true)])

    static let readAfter = ReadStatement("""
        SELECT item_id, read_at AS marked_at FROM content.item_states
        WHERE user_id = $1 AND read_at IS NOT NULL
            AND (read_at, item_id) < (to_timestamp($3::bigint / 1000.0), $4::text)
        ORDER BY read_at DESC, item_id DESC
        LIMIT $2
        """, types: ["uuid", "bigint", "bigint", "text"], rowOrder: [.time("marked_at", descending: true), .text("item_id", descending: true)])

    static let unlikedFirst = ReadStatement("""
        SELECT item_id, unliked_at AS marked_at FROM content.item_states
        WHERE user_id = $1 AND unliked_at IS NOT NULL
        ORDER BY unliked_at DESC, item_id DESC
        LIMIT $2
        """, types: ["uuid", "bigint"], rowOrder: [.time("marked_at", descending: true), .text("item_id", descending: true)])

    static let unlikedAfter = ReadStatement("""
        SELECT item_id, unliked_at AS marked_at FROM content.item_states
        WHERE user_id = $1 AND unliked_at IS NOT NULL
            AND (unliked_at, item_id) < (to_timestamp($3::bigint / 1000.0), $4::text)
        ORDER BY unliked_at DESC, item_id DESC
        LIMIT $2
        """, types: ["uuid", "bigint", "bigint", "text"], rowOrder: [.time("marked_at", descending: true), .text("item_id", descending: true)])
}

extension ContentStore {
    /// One page of `list` after `cursor`: each item with the time it was marked.
    func marks(_ list: MarkList, user: UUID, limit: Int, after cursor: PageCursor?) async throws -> (items: [(String, Timestamp)], next: String?) {
        var parameters: [String?] = [String(limit + 1)]
        if let cursor { parameters += [String(cursor.key), cursor.itemID ?? ""] }
        let rows = try await read(.marks(list, afterCursor: cursor != nil), user: user, parameters)
        var items: [(String, Timestamp)] = []
        items.reserveCapacity(min(rows.count, limit))
        for row in rows.prefix(limit) {
            items.append((try row.decode("item_id", as: String.self), Timestamp(milliseconds: try row.decode("marked_at", as: PostgresMilliseconds.self).value)))
        }
        var next: String?
        if rows.count > limit, let last = items.last {
            next = PageCursor(kind: list.cursorKind, key: last.1.milliseconds, itemID: last.0).encoded
        }
        return (items, next)
    }
}
