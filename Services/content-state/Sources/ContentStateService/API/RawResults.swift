import ContentStateAPI
import ServiceProtocol

// The results of the read methods a client calls most (a page of favorites, the state of a
// screenful of items, a page of changes), written as JSON by hand: the same members and
// values `JSONEncoder` writes for these types (their `Decodable` reads them back), without
// its cost per value.

extension FavoritesPage {
    var rawJSON: RawJSON {
        var json = RawJSON(capacity: 48 + self.items.count * 128)
        json.append(#"{"items":["#)
        for (index, item) in self.items.enumerated() {
            if index > 0 { json.append(",") }
            json.append(#"{"item_id":"#)
            json.append(string: item.itemID)
            json.append(#","nickname":"#)
            json.append(string: item.nickname)
            json.append(#","position":"#)
            json.append(integer: item.position)
            json.append(#","favorited_at":"#)
            json.append(rfc3339Milliseconds: item.favoritedAt.milliseconds)
            json.append("}")
        }
        json.append(#"],"next_cursor":"#)
        json.append(string: self.nextCursor)
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
    var rawJSON: RawJSON {
        var json = RawJSON(capacity: 96 + self.changes.count * 256)
        json.append(#"{"changes":["#)
        for (index, change) in self.changes.enumerated() {
            if index > 0 { json.append(",") }
            json.append(#"{"item_id":"#)
            json.append(string: change.itemID)
            json.append(#","favorited":"#)
            json.append(bool: change.favorited)
            json.append(#","nickname":"#)
            json.append(string: change.nickname)
            json.append(#","position":"#)
            json.append(integer: change.position)
            json.append(#","read":"#)
            json.append(bool: change.read)
            json.append(#","unliked":"#)
            json.append(bool: change.unliked)
            json.append(#","updated_at":"#)
            json.append(rfc3339Milliseconds: change.updatedAt.milliseconds)
            json.append(#","favorited_at":"#)
            json.append(rfc3339Milliseconds: change.favoritedAt?.milliseconds)
            json.append(#","read_at":"#)
            json.append(rfc3339Milliseconds: change.readAt?.milliseconds)
            json.append(#","unliked_at":"#)
            json.append(rfc3339Milliseconds: change.unlikedAt?.milliseconds)
            json.append("}")
        }
        json.append(#"],"next_cursor":"#)
        json.append(string: self.nextCursor)
        json.append(#","has_more":"#)
        json.append(bool: self.hasMore)
        json.append("}")
        return json
    }
}
