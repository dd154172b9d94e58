import Foundation

/// A keyset position: the sort key of the last item a page returned (never an offset), so a
/// page read while others write neither repeats nor skips an item. Callers see it as an
/// opaque base64url string; a cursor of another list, or a string that is no cursor, is
/// `bad_request`.
struct PageCursor: Codable, Hashable, Sendable {
    /// Which list the cursor belongs to.
    enum Kind: String, Codable, Sendable {
        case favoritesRecent = "fr"
        case favoritesPosition = "fp"
        case read = "r"
        case unliked = "u"
        case changes = "c"
    }

    var kind: Kind
    /// The primary sort key: a time in milliseconds, a sort position, or a change version.
    var key: Int64
    /// The tie-breaker for lists ordered by time or position; nil for the changes feed.
    var itemID: String?

    enum CodingKeys: String, CodingKey {
        case kind = "k"
        case key = "n"
        case itemID = "i"
    }

    init(kind: Kind, key: Int64, itemID: String? = nil) {
        self.kind = kind
        self.key = key
        self.itemID = itemID
    }

    /// The cursor as callers see it; the same position always gives the same string.
    var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = (try? encoder.encode(self)) ?? Data()
        return json.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Reads a caller's cursor, which must belong to a list of `kind`.
    init(decoding text: String, as kind: Kind) throws(ContentStateError) {
        guard text.utf8.count <= 1024 else { throw .invalidCursor }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let json = Data(base64Encoded: base64),
            let cursor = try? JSONDecoder().decode(PageCursor.self, from: json),
            cursor.kind == kind,
            (cursor.itemID != nil) == (kind != .changes)
        else { throw .invalidCursor }
        self = cursor
    }
}
