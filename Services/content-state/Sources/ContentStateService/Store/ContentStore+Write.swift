import ContentStateAPI
import Foundation
import Postgres
import ServiceProtocol

/// What a write did: the state of each item afterwards, and how many items changed.
struct WriteOutcome: Sendable {
    var states: [ItemID: ItemState]
    var changed: Int
}

extension ContentStore {
    /// Applies `transition` to each item of one user in one transaction.
    ///
    /// The transaction first locks the user's `user_versions` row, so a user's writers run one
    /// at a time; it then reads the items, applies the transition, and writes only the items
    /// that changed, each with the next number of the user's version. As versions are taken
    /// under the lock, they commit in order: a changes poll never skips a change that commits
    /// late. An item nothing changed keeps its version (idempotent put/remove/mark/unmark).
    func write(
        user: UUID, items: [ItemID], _ transition: (inout ItemState, Timestamp) -> Void
    ) async throws -> WriteOutcome {
        try await postgres.withTransaction { connection in
            let lock = try await connection.query(Self.lockUser, [.uuid(user)])
            let favoriteCount = try lock[0].decode("favorite_count", as: Int.self)
            let now = Timestamp(milliseconds: try lock[0].decode("now_ms", as: Int64.self))

            var before: [ItemID: ItemState] = [:]
            for row in try await connection.query(Self.selectItems, [.uuid(user), .text(postgresTextArray(items))]) {
                before[try ItemID(validating: try row.decode("item_id", as: String.self))] = try ItemState(row: row)
            }

            var after: [ItemID: ItemState] = [:]
            var changes: [ItemWriteRow] = []
            var favoriteDelta = 0
            for id in items {
                let old = before[id] ?? .empty
                var new = old
                transition(&new, now)
                after[id] = new
                guard new != old else { continue }
                changes.append(ItemWriteRow(sequence: changes.count + 1, itemID: id.value, state: new))
                favoriteDelta += (new.isFavorited ? 1 : 0) - (old.isFavorited ? 1 : 0)
            }
            if favoriteDelta > 0, favoriteCount + favoriteDelta > configuration.maxFavoritesPerUser {
                throw ContentStateError.favoritesLimitReached(maximum: configuration.maxFavoritesPerUser)
            }
            if !changes.isEmpty {
                let rows = String(decoding: try RPCJSON.encode(changes), as: UTF8.self)
                try await connection.execute(
                    Self.upsertItems,
                    [.uuid(user), .int(changes.count), .int(favoriteDelta), .int(Int(now.milliseconds)), .text(rows)])
            }
            return WriteOutcome(states: after, changed: changes.count)
        }
    }

    /// Takes the user's lock for the rest of the transaction (creating the row on first use)
    /// and reads the favorite count and the time of the write, in whole milliseconds.
    static let lockUser = """
        INSERT INTO content.user_versions AS v (user_id) VALUES ($1)
        ON CONFLICT (user_id) DO UPDATE SET version = v.version
        RETURNING v.favorite_count, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms
        """

    static let selectItems = """
        SELECT \(ItemColumns.state)
        FROM unnest($2::text[]) AS asked(item_id)
        JOIN content.item_states s ON s.user_id = $1 AND s.item_id = asked.item_id
        """

    /// Writes the changed items: the user's version moves on by their number and each takes
    /// one of the new versions, in order.
    static let upsertItems = """
        WITH bump AS (
            UPDATE content.user_versions
            SET version = version + $2, favorite_count = favorite_count + $3
            WHERE user_id = $1
            RETURNING version - $2 AS base
        )
        INSERT INTO content.item_states AS s
            (user_id, item_id, favorited_at, nickname, position, read_at, unliked_at, updated_at, version)
        SELECT $1, r.item_id,
            to_timestamp(r.favorited_ms / 1000.0), r.nickname, r.position,
            to_timestamp(r.read_ms / 1000.0), to_timestamp(r.unliked_ms / 1000.0),
            to_timestamp($4::bigint / 1000.0), bump.base + r.seq
        FROM bump, jsonb_to_recordset($5::jsonb) AS r(
            seq bigint, item_id text, favorited_ms bigint, nickname text, position bigint,
            read_ms bigint, unliked_ms bigint)
        ON CONFLICT (user_id, item_id) DO UPDATE SET
            favorited_at = excluded.favorited_at, nickname = excluded.nickname, position = excluded.position,
            read_at = excluded.read_at, unliked_at = excluded.unliked_at,
            updated_at = excluded.updated_at, version = excluded.version
        """
}

/// One changed item as `upsertItems` reads it from its JSON parameter.
struct ItemWriteRow: Encodable {
    var sequence: Int
    var itemID: String
    var state: ItemState

    enum CodingKeys: String, CodingKey {
        case seq, itemID = "item_id", favoritedMs = "favorited_ms", nickname, position, readMs = "read_ms", unlikedMs = "unliked_ms"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.sequence, forKey: .seq)
        try container.encode(self.itemID, forKey: .itemID)
        try container.encodeIfPresent(self.state.favoritedAt?.milliseconds, forKey: .favoritedMs)
        try container.encodeIfPresent(self.state.nickname, forKey: .nickname)
        try container.encodeIfPresent(self.state.position, forKey: .position)
        try container.encodeIfPresent(self.state.readAt?.milliseconds, forKey: .readMs)
        try container.encodeIfPresent(self.state.unlikedAt?.milliseconds, forKey: .unlikedMs)
    }
}
