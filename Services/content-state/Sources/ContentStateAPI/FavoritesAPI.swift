import FoundationEssentials

/// Params of `content.favorites.put`. A member left out keeps the stored value, `null`
/// clears it (see `FieldUpdate`).
public struct FavoritePutParams: Codable, Sendable, Hashable {
    public var userID: UUID
    public var itemID: String
    public var nickname: FieldUpdate<String>
    public var position: FieldUpdate<Int64>

    public init(userID: UUID, itemID: String, nickname: FieldUpdate<String> = .keep, position: FieldUpdate<Int64> = .keep) {
        self.userID = userID
        self.itemID = itemID
        self.nickname = nickname
        self.position = position
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case itemID = "item_id"
        case nickname, position
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.userID = try container.decode(UUID.self, forKey: .userID)
        self.itemID = try container.decode(String.self, forKey: .itemID)
        self.nickname = try container.decodeUpdate(String.self, forKey: .nickname)
        self.position = try container.decodeUpdate(Int64.self, forKey: .position)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.userID, forKey: .userID)
        try container.encode(self.itemID, forKey: .itemID)
        try container.encodeUpdate(self.nickname, forKey: .nickname)
        try container.encodeUpdate(self.position, forKey: .position)
    }
}

/// A favorite as lists and `content.favorites.put` return it; `nickname` and `position`
/// are `null` when unset.
public struct Favorite: Codable, Sendable, Hashable {
    public var itemID: String
    public var nickname: String?
    public var position: Int64?
    public var favoritedAt: Timestamp

    public init(itemID: String, nickname: String?, position: Int64?, favoritedAt: Timestamp) {
        self.itemID = itemID
        self.nickname = nickname
        self.position = position
        self.favoritedAt = favoritedAt
    }

    enum CodingKeys: String, CodingKey {
        case itemID = "item_id"
        case nickname, position
        case favoritedAt = "favorited_at"
    }

    public init(from decoder: any Decoder) throws {
        try self.init(fields: try decoder.container(keyedBy: CodingKeys.self))
    }

    init(fields container: KeyedDecodingContainer<CodingKeys>) throws {
        self.itemID = try container.decode(String.self, forKey: .itemID)
        self.nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        self.position = try container.decodeIfPresent(Int64.self, forKey: .position)
        self.favoritedAt = try container.decodeTimestamp(forKey: .favoritedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try self.encodeFields(into: &container)
    }

    func encodeFields(into container: inout KeyedEncodingContainer<CodingKeys>) throws {
        try container.encode(self.itemID, forKey: .itemID)
        try container.encodeOrNull(self.nickname, forKey: .nickname)
        try container.encodeOrNull(self.position, forKey: .position)
        try container.encode(self.favoritedAt.rfc3339, forKey: .favoritedAt)
    }
}

/// The result of `content.favorites.toggle`: the state after the toggle.
public struct FavoriteToggleResult: Codable, Sendable, Hashable {
    public var itemID: String
    public var favorited: Bool

    public init(itemID: String, favorited: Bool) {
        self.itemID = itemID
        self.favorited = favorited
    }

    enum CodingKeys: String, CodingKey {
        case itemID = "item_id"
        case favorited
    }
}

/// The orders of `content.favorites.list`.
public enum FavoritesOrder: String, Codable, Sendable, CaseIterable {
    /// Most recently favorited first.
    case recent
    /// Lowest `position` first; favorites without a position last.
    case position
}

/// Params of `content.favorites.list`.
public struct FavoritesListParams: Codable, Sendable, Hashable {
    public var userID: UUID
    /// `recent` when absent.
    public var order: FavoritesOrder?
    public var limit: Int?
    public var cursor: String?

    public init(userID: UUID, order: FavoritesOrder? = nil, limit: Int? = nil, cursor: String? = nil) {
        self.userID = userID
        self.order = order
        self.limit = limit
        self.cursor = cursor
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case order, limit, cursor
    }
}

/// One page of favorites; `next_cursor` is `null` on the last page.
public struct FavoritesPage: Codable, Sendable, Hashable {
    public var items: [Favorite]
    public var nextCursor: String?

    public init(items: [Favorite], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }

    // Items go through nested containers: Foundation's coders are several times slower for
    // an array of a custom type than for the same fields written into nested containers.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .items)
        var items: [Favorite] = []
        items.reserveCapacity(list.count ?? 0)
        while !list.isAtEnd {
            items.append(try Favorite(fields: try list.nestedContainer(keyedBy: Favorite.CodingKeys.self)))
        }
        self.items = items
        self.nextCursor = try container.decodeIfPresent(String.self, forKey: .nextCursor)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list = container.nestedUnkeyedContainer(forKey: .items)
        for item in self.items {
            var fields = list.nestedContainer(keyedBy: Favorite.CodingKeys.self)
            try item.encodeFields(into: &fields)
        }
        try container.encodeOrNull(self.nextCursor, forKey: .nextCursor)
    }
}
