import ContentStateAPI
import Postgres
import ServiceProtocol

// The results of the read methods a client calls most (a page of favorites, the state of a
// screenful of items, a page of changes), written as JSON by hand: the same members and
// values `JSONEncoder` writes for these types (their `Decodable` reads them back), without
// its cost per value.

extension FavoritesPage {
    /// The page of `rows` (`ContentStore.favoriteColumns`, in `order`; a row beyond `limit`
    /// says there are more), as `JSONEncoder` writes a `FavoritesPage` (its `Decodable` reads
    /// it back). Written from the cells as they come, as the changes page is: no `Favorite` and
    /// no `String` in between but the last item's id when a cursor follows.
    static func rawJSON(rows: [PostgresRow], limit: Int, order: FavoritesOrder) throws -> RawJSON {
        let shown = rows.prefix(limit)
        var json = RawJSON(capacity: 48 + shown.count * 128)
        json.append(#"{"items":["#)
        var next: String?
        if let first = rows.first {
            let itemID = try first.requiredColumnIndex("item_id")
            let nickname = try first.requiredColumnIndex("nickname")
            let position = try first.requiredColumnIndex("position")
            let favorited = try first.requiredColumnIndex("favorited_at")
            for (index, row) in shown.enumerated() {
                if index > 0 { json.append(",") }
                json.append(#"{"item_id":"#)
                try json.append(text: row, itemID)
                json.append(#","nickname":"#)
                try json.append(text: row, nickname)
                json.append(#","position":"#)
                json.append(integer: try row.decode(position, as: Int64?.self))
                json.append(#","favorited_at":"#)
                json.append(rfc3339Milliseconds: try row.decode(favorited, as: PostgresMilliseconds.self).value)
                json.append("}")
            }
            if rows.count > limit, let last = shown.last {
                let id = try last.decode(itemID, as: String.self)
                next = switch order {
                case .recent:
                    PageCursor(kind: .favoritesRecent, key: try last.decode(favorited, as: PostgresMilliseconds.self).value, itemID: id).encoded
                case .position:
                    PageCursor(
                        kind: .favoritesPosition, key: try last.decode(first.requiredColumnIndex("sort_position"), as: Int64.self),
                        itemID: id).encoded
                }
            }
        }
        json.append(#"],"next_cursor":"#)
        json.append(string: next)
        json.append("}")
        return json
    }
}

extension ItemFlagsTable {
    /// `{"items":{"<id>":{"favorited","read","unliked"}}}`, the `StateQueryResult` of these
    /// flags as `JSONEncoder` writes it (its `Decodable` reads it back).
    var rawJSON: RawJSON {
        var json = RawJSON(capacity: 16 + self.ids.count * 96)
        json.append(#"{"items":{"#)
        for (index, id) in self.ids.enumerated() {
            if index > 0 { json.append(",") }
            let flags = self.flags[index]
            json.append(string: id)
            json.append(#":{"favorited":"#)
            json.append(bool: flags.favorited)
            json.append(#","read":"#)
            json.append(bool: flags.read)
            json.append(#","unliked":"#)
            json.append(bool: flags.unliked)
            json.append("}")
        }
        json.append("}}")
        return json
    }
}

extension ChangesPage {
    /// The page of `rows` (`ContentStore.selectChanges`' columns, oldest first; a row beyond
    /// `limit` says there are more) after version `version`, as `JSONEncoder` writes a
    /// `ChangesPage` (its `Decodable` reads it back). Written from the cells as they come: no
    /// `Change` and no `String` in between, where a page of 100 made 200 strings and copied 100
    /// changes twice (8 % of the gateway's samples under the changes feed).
    static func rawJSON(rows: [PostgresRow], limit: Int, after version: Int64) throws -> RawJSON {
        var json = RawJSON(capacity: 96 + min(rows.count, limit) * 256)
        json.append(#"{"changes":["#)
        var lastVersion = version
        if let first = rows.first {
            let itemID = try first.requiredColumnIndex("item_id")
            let favorited = try first.requiredColumnIndex("favorited_at")
            let nickname = try first.requiredColumnIndex("nickname")
            let position = try first.requiredColumnIndex("position")
            let read = try first.requiredColumnIndex("read_at")
            let unliked = try first.requiredColumnIndex("unliked_at")
            let updated = try first.requiredColumnIndex("updated_at")
            let rowVersion = try first.requiredColumnIndex("version")
            func time(_ row: PostgresRow, _ column: Int) throws -> Int64? {
                try row.decode(column, as: PostgresMilliseconds?.self)?.value
            }
            for (index, row) in rows.prefix(limit).enumerated() {
                if index > 0 { json.append(",") }
                let favoritedAt = try time(row, favorited)
                json.append(#"{"item_id":"#)
                try json.append(text: row, itemID)
                json.append(#","favorited":"#)
                json.append(bool: favoritedAt != nil)
                json.append(#","nickname":"#)
                try json.append(text: row, nickname)
                json.append(#","position":"#)
                json.append(integer: try row.decode(position, as: Int64?.self))
                let readAt = try time(row, read)
                let unlikedAt = try time(row, unliked)
                json.append(#","read":"#)
                json.append(bool: readAt != nil)
                json.append(#","unliked":"#)
                json.append(bool: unlikedAt != nil)
                json.append(#","updated_at":"#)
                json.append(rfc3339Milliseconds: try row.decode(updated, as: PostgresMilliseconds.self).value)
                json.append(#","favorited_at":"#)
                json.append(rfc3339Milliseconds: favoritedAt)
                json.append(#","read_at":"#)
                json.append(rfc3339Milliseconds: readAt)
                json.append(#","unliked_at":"#)
                json.append(rfc3339Milliseconds: unlikedAt)
                json.append("}")
                lastVersion = try row.decode(rowVersion, as: Int64.self)
            }
        }
        json.append(#"],"next_cursor":"#)
        json.append(string: PageCursor(kind: .changes, key: lastVersion).encoded)
        json.append(#","has_more":"#)
        json.append(bool: rows.count > limit)
        json.append("}")
        return json
    }
}

extension RawJSON {
    /// The text cell at `column` of `row` as a JSON string, or `null` for NULL: its bytes
    /// read in place.
    fileprivate mutating func append(text row: PostgresRow, _ column: Int) throws {
        let written = try row.withBytes(column) { self.append(utf8String: $0) }
        if written == nil { self.append("null") }
    }
}
