import ContentStateAPI
import Foundation
import Postgres

extension ContentStore {
    /// `table` with the flags of each of its items; items the user never touched stay all false.
    func flags(user: UUID, of table: ItemFlagsTable) async throws -> ItemFlagsTable {
        guard !table.ids.isEmpty else { return table }
        var table = table
        let rows = try await postgres.query(Self.selectFlags, [.uuid(user), .text(postgresArray(table.ids))], results: .binary)
        for row in rows {
            table.set(
                ItemFlags(
                    favorited: try row.decode(1, as: Bool.self), read: try row.decode(2, as: Bool.self),
                    unliked: try row.decode(3, as: Bool.self)),
                of: try row.decode(0, as: String.self))
        }
        return table
    }

    /// `item_id = ANY($2)`: one index scan that probes the primary key once per id. A join
    /// with `unnest($2)` was measured too, and was slower (pgbench, prepared, 50 ids:
    /// 10,300 against 12,300 queries/s).
    /// Not in the read line: the statement is the id probes, and reads run together cost
    /// Postgres no less per id (pgbench, 50 ids: 14,800 reads a second alone, 14,900 in
    /// statements of four), and more through the service (docs/benchmarks.md).
    static let selectFlags = """
        SELECT s.item_id, s.favorited_at IS NOT NULL, s.read_at IS NOT NULL, s.unliked_at IS NOT NULL
        FROM content.item_states s WHERE s.user_id = $1 AND s.item_id = ANY($2::text[])
        """

    /// The user's changes with a version above `version`, oldest first, at most `limit`.
    func changes(user: UUID, after version: Int64, limit: Int) async throws -> ChangesPage {
        let rows = try await read(.changes, user: user, [String(version), String(limit + 1)])
        var changes: [Change] = []
        changes.reserveCapacity(min(rows.count, limit))
        var lastVersion = version
        for row in rows.prefix(limit) {
            let state = try ItemState(row: row)
            changes.append(Change(
                itemID: try row.decode("item_id", as: String.self), state: state,
                updatedAt: Timestamp(milliseconds: try row.decode("updated_ms", as: Int64.self))))
            lastVersion = try row.decode("version", as: Int64.self)
        }
        return ChangesPage(
            changes: changes, nextCursor: PageCursor(kind: .changes, key: lastVersion).encoded,
            hasMore: rows.count > limit)
    }

    static let selectChanges = ReadStatement("""
        SELECT \(ItemColumns.state), \(ItemColumns.milliseconds("s.updated_at")) AS updated_ms, s.version
        FROM content.item_states s
        WHERE s.user_id = $1 AND s.version > $2
        ORDER BY s.version
        LIMIT $3
        """, types: ["uuid", "bigint", "bigint"], rowOrder: [.integer("version")])
}
