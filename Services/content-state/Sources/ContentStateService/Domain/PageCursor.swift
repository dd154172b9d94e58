import TextCoding
import ContentStateAPI
import FoundationEssentials
import ServiceKit
import ServiceProtocol

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

    /// Members in key order (`i`, `k`, `n`): the JSON is the same as a sorted-keys
    /// `JSONEncoder` writes, so a cursor reads the same as in earlier versions.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(self.itemID, forKey: .itemID)
        try container.encode(self.kind, forKey: .kind)
        try container.encode(self.key, forKey: .key)
    }

    /// The cursor as callers see it; the same position always gives the same string. Every
    /// list page makes one: its JSON is written here as `encode(to:)` has a sorted-keys
    /// `JSONEncoder` write it (`/` escaped, as Foundation does), then base64url.
    var encoded: String {
        var json: [UInt8] = []
        json.reserveCapacity(40 + (self.itemID?.utf8.count ?? 0))
        json.write("{")
        if let itemID = self.itemID {
            json.write(#""i":"#)
            JSONString.write(itemID, escapingSlashes: true, to: &json)
            json.write(",")
        }
        json.write(#""k":""#)
        json.append(contentsOf: self.kind.rawValue.utf8)
        json.write(#"","n":"#)
        json.append(contentsOf: String(self.key).utf8)
        json.write("}")
        return Base64URL.encode(json)
    }

    /// Reads a caller's cursor, which must belong to a list of `kind`.
    init(decoding text: String, as kind: Kind) throws(ContentStateError) {
        guard text.utf8.count <= 1024, let json = Base64URL.decode(text),
            let cursor = try? RPCJSON.decode(PageCursor.self, from: Data(json)),
            cursor.kind == kind,
            (cursor.itemID != nil) == (kind != .changes),
            cursor.fitsItsStatement
        else { throw .invalidCursor }
        self = cursor
    }

    /// The milliseconds a time key may name: years 1 to 9999. Every time the service writes is
    /// inside, and Postgres refuses a time far beyond (`to_timestamp` of a key near `Int64.max`
    /// failed the statement: `internal` instead of `bad_request`).
    static let timeKeys: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// Whether the statement of its list can take it: a time key in `timeKeys`, and an item id
    /// without NUL (which no text parameter can carry). A cursor the service wrote always can.
    private var fitsItsStatement: Bool {
        switch self.kind {
        case .favoritesRecent, .read, .unliked:
            guard Self.timeKeys.contains(self.key) else { return false }
        case .favoritesPosition, .changes:
            break
        }
        return !(self.itemID?.utf8.contains(0) ?? false)
    }
}
