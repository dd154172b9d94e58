import FoundationEssentials

/// An item marked read, as `content.read.mark` and `content.read.list` return it.
public struct ReadMark: Codable, Sendable, Hashable {
    public var itemID: String
    public var readAt: Timestamp

    public init(itemID: String, readAt: Timestamp) {
        self.itemID = itemID
        self.readAt = readAt
    }

    enum CodingKeys: String, CodingKey {
        case itemID = "item_id"
        case readAt = "read_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.itemID = try container.decode(String.self, forKey: .itemID)
        self.readAt = try container.decodeTimestamp(forKey: .readAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.itemID, forKey: .itemID)
        try container.encode(self.readAt.rfc3339, forKey: .readAt)
    }
}

/// An unliked item, as `content.unlikes.put` and `content.unlikes.list` return it.
public struct Unlike: Codable, Sendable, Hashable {
    public var itemID: String
    public var unlikedAt: Timestamp

    public init(itemID: String, unlikedAt: Timestamp) {
        self.itemID = itemID
        self.unlikedAt = unlikedAt
    }

    enum CodingKeys: String, CodingKey {
        case itemID = "item_id"
        case unlikedAt = "unliked_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.itemID = try container.decode(String.self, forKey: .itemID)
        self.unlikedAt = try container.decodeTimestamp(forKey: .unlikedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.itemID, forKey: .itemID)
        try container.encode(self.unlikedAt.rfc3339, forKey: .unlikedAt)
    }
}

/// One page of a list ordered by time, most recent first; `next_cursor` is `null` on the last page.
public struct MarksPage<Item: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    public var items: [Item]
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.items, forKey: .items)
        try container.encodeOrNull(self.nextCursor, forKey: .nextCursor)
    }
}

/// Params of `content.read.batch`: mark (`read: true`) or unmark many items at once.
public struct ReadBatchParams: Codable, Sendable, Hashable {
    public var userID: UUID
    /// At most `MAX_BATCH` ids; repeats count once.
    public var itemIDs: [String]
    public var read: Bool

    public init(userID: UUID, itemIDs: [String], read: Bool) {
        self.userID = userID
        self.itemIDs = itemIDs
        self.read = read
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case itemIDs = "item_ids"
        case read
    }
}

/// The result of `content.read.batch`: how many items changed (already in the asked state do not count).
public struct ReadBatchResult: Codable, Sendable, Hashable {
    public var updated: Int

    public init(updated: Int) {
        self.updated = updated
    }
}
