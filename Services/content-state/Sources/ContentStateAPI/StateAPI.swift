import FoundationEssentials

/// Params of `content.state.query`.
public struct StateQueryParams: Codable, Sendable, Hashable {
    public var userID: UUID
    /// At most `MAX_BATCH` ids.
    public var itemIDs: [String]

    public init(userID: UUID, itemIDs: [String]) {
        self.userID = userID
        self.itemIDs = itemIDs
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case itemIDs = "item_ids"
    }
}

/// The state of one item in a state query.
public struct ItemFlags: Codable, Sendable, Hashable {
    public var favorited: Bool
    public var read: Bool
    public var unliked: Bool

    public init(favorited: Bool, read: Bool, unliked: Bool) {
        self.favorited = favorited
        self.read = read
        self.unliked = unliked
    }
}

/// The result of `content.state.query`: every id asked for, keyed by id.
public struct StateQueryResult: Codable, Sendable, Hashable {
    public var items: [String: ItemFlags]

    public init(items: [String: ItemFlags]) {
        self.items = items
    }

    enum CodingKeys: String, CodingKey {
        case items
    }

    /// An item id as a key of the `items` object.
    struct ItemKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    enum FlagKeys: String, CodingKey {
        case favorited, read, unliked
    }

    // Flags go through nested containers, which Foundation's coders handle several times
    // faster than a dictionary of a custom type; a state query answers up to MAX_BATCH ids.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let object = try container.nestedContainer(keyedBy: ItemKey.self, forKey: .items)
        var items: [String: ItemFlags] = [:]
        items.reserveCapacity(object.allKeys.count)
        for key in object.allKeys {
            let flags = try object.nestedContainer(keyedBy: FlagKeys.self, forKey: key)
            items[key.stringValue] = ItemFlags(
                favorited: try flags.decode(Bool.self, forKey: .favorited), read: try flags.decode(Bool.self, forKey: .read),
                unliked: try flags.decode(Bool.self, forKey: .unliked))
        }
        self.items = items
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var object = container.nestedContainer(keyedBy: ItemKey.self, forKey: .items)
        for (id, value) in self.items {
            var flags = object.nestedContainer(keyedBy: FlagKeys.self, forKey: ItemKey(stringValue: id))
            try flags.encode(value.favorited, forKey: .favorited)
            try flags.encode(value.read, forKey: .read)
            try flags.encode(value.unliked, forKey: .unliked)
        }
    }
}

/// Params of `content.state.changes`.
public struct ChangesParams: Codable, Sendable, Hashable {
    public var userID: UUID
    /// The `next_cursor` of the previous call; absent to read from the start.
    public var since: String?
    public var limit: Int?

    public init(userID: UUID, since: String? = nil, limit: Int? = nil) {
        self.userID = userID
        self.since = since
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case since, limit
    }
}

/// The whole current state of one item that changed. A removal appears with the flag false
/// (e.g. `favorited: false`, `nickname: null`).
public struct Change: Codable, Sendable, Hashable {
    public var itemID: String
    public var favorited: Bool
    public var nickname: String?
    public var position: Int64?
    public var read: Bool
    public var unliked: Bool
    public var updatedAt: Timestamp
    public var favoritedAt: Timestamp?
    public var readAt: Timestamp?
    public var unlikedAt: Timestamp?

    enum CodingKeys: String, CodingKey {
        case itemID = "item_id"
        case favorited, nickname, position, read, unliked
        case updatedAt = "updated_at"
        case favoritedAt = "favorited_at"
        case readAt = "read_at"
        case unlikedAt = "unliked_at"
    }

    public init(
        itemID: String, favorited: Bool, nickname: String?, position: Int64?, read: Bool, unliked: Bool, updatedAt: Timestamp,
        favoritedAt: Timestamp?, readAt: Timestamp?, unlikedAt: Timestamp?
    ) {
        self.itemID = itemID
        self.favorited = favorited
        self.nickname = nickname
        self.position = position
        self.read = read
        self.unliked = unliked
        self.updatedAt = updatedAt
        self.favoritedAt = favoritedAt
        self.readAt = readAt
        self.unlikedAt = unlikedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.itemID, forKey: .itemID)
        try container.encode(self.favorited, forKey: .favorited)
        try container.encodeOrNull(self.nickname, forKey: .nickname)
        try container.encodeOrNull(self.position, forKey: .position)
        try container.encode(self.read, forKey: .read)
        try container.encode(self.unliked, forKey: .unliked)
        try container.encode(self.updatedAt.rfc3339, forKey: .updatedAt)
        try container.encodeOrNull(self.favoritedAt?.rfc3339, forKey: .favoritedAt)
        try container.encodeOrNull(self.readAt?.rfc3339, forKey: .readAt)
        try container.encodeOrNull(self.unlikedAt?.rfc3339, forKey: .unlikedAt)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.itemID = try container.decode(String.self, forKey: .itemID)
        self.favorited = try container.decode(Bool.self, forKey: .favorited)
        self.nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        self.position = try container.decodeIfPresent(Int64.self, forKey: .position)
        self.read = try container.decode(Bool.self, forKey: .read)
        self.unliked = try container.decode(Bool.self, forKey: .unliked)
        self.updatedAt = try container.decodeTimestamp(forKey: .updatedAt)
        self.favoritedAt = try container.decodeTimestampIfPresent(forKey: .favoritedAt)
        self.readAt = try container.decodeTimestampIfPresent(forKey: .readAt)
        self.unlikedAt = try container.decodeTimestampIfPresent(forKey: .unlikedAt)
    }
}

/// One page of the changes feed. `next_cursor` is always set: pass it as `since` next time
/// (it stays the same when nothing changed). `has_more` says another page is ready now.
public struct ChangesPage: Codable, Sendable, Hashable {
    public var changes: [Change]
    public var nextCursor: String
    public var hasMore: Bool

    public init(changes: [Change], nextCursor: String, hasMore: Bool) {
        self.changes = changes
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }

    enum CodingKeys: String, CodingKey {
        case changes
        case nextCursor = "next_cursor"
        case hasMore = "has_more"
    }
}
