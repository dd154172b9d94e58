import Foundation

/// A favorite item (`PUT /api/v1/favorites/{item_id}`, `GET /api/v1/favorites`).
public struct Favorite: Codable, Hashable, Sendable {
    /// The app catalogue's id of the item.
    public var itemID: String
    public var nickname: String?
    /// The app's ordering of favorites (`order: .position`).
    public var position: Int64?
    public var favoritedAt: Date

    public init(itemID: String, nickname: String? = nil, position: Int64? = nil, favoritedAt: Date) {
        self.itemID = itemID
        self.nickname = nickname
        self.position = position
        self.favoritedAt = favoritedAt
    }

    enum CodingKeys: String, CodingKey {
        case nickname, position
        case itemID = "item_id"
        case favoritedAt = "favorited_at"
    }
}

/// An item marked read (`PUT /api/v1/read/{item_id}`, `GET /api/v1/read`).
public struct ReadMark: Codable, Hashable, Sendable {
    public var itemID: String
    public var readAt: Date

    public init(itemID: String, readAt: Date) {
        self.itemID = itemID
        self.readAt = readAt
    }

    enum CodingKeys: String, CodingKey {
        case itemID = "item_id"
        case readAt = "read_at"
    }
}

/// An item the user unliked (`PUT /api/v1/unlikes/{item_id}`, `GET /api/v1/unlikes`).
public struct Unlike: Codable, Hashable, Sendable {
    public var itemID: String
    public var unlikedAt: Date

    public init(itemID: String, unlikedAt: Date) {
        self.itemID = itemID
        self.unlikedAt = unlikedAt
    }

    enum CodingKeys: String, CodingKey {
        case itemID = "item_id"
        case unlikedAt = "unliked_at"
    }
}

/// The user's flags on one item (`POST /api/v1/state/query`).
public struct ItemState: Codable, Hashable, Sendable {
    public var favorited: Bool
    public var read: Bool
    public var unliked: Bool

    public init(favorited: Bool, read: Bool, unliked: Bool) {
        self.favorited = favorited
        self.read = read
        self.unliked = unliked
    }
}

/// The whole current state of an item that changed, from the changes feed
/// (`GET /api/v1/state/changes`). A removal shows as its flag false.
public struct ItemChange: Codable, Hashable, Sendable {
    public var itemID: String
    public var favorited: Bool
    public var nickname: String?
    public var position: Int64?
    public var read: Bool
    public var unliked: Bool
    public var updatedAt: Date
    /// When the item was favorited, while it is (nil otherwise, or from a gateway that does not say).
    public var favoritedAt: Date?
    /// When the item was marked read, while it is.
    public var readAt: Date?
    /// When the item was unliked, while it is.
    public var unlikedAt: Date?

    /// True when the user has any state left on the item.
    public var hasState: Bool { self.favorited || self.read || self.unliked }

    public init(
        itemID: String, favorited: Bool = false, nickname: String? = nil, position: Int64? = nil, read: Bool = false,
        unliked: Bool = false, updatedAt: Date, favoritedAt: Date? = nil, readAt: Date? = nil, unlikedAt: Date? = nil
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

    enum CodingKeys: String, CodingKey {
        case favorited, nickname, position, read, unliked
        case itemID = "item_id"
        case updatedAt = "updated_at"
        case favoritedAt = "favorited_at"
        case readAt = "read_at"
        case unlikedAt = "unliked_at"
    }
}

/// One page of the changes feed. Pass ``nextCursor`` as `since` next time.
public struct ChangesPage: Codable, Hashable, Sendable {
    /// Each changed item once, with its whole current state.
    public var changes: [ItemChange]
    /// Always set: it stays the same when nothing changed.
    public var nextCursor: String
    /// Another page is ready now.
    public var hasMore: Bool

    public init(changes: [ItemChange], nextCursor: String, hasMore: Bool) {
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

/// How ``LatchkeyClient/favorite(_:nickname:position:)`` treats a member: keep the stored
/// value, set a new one, or clear it.
public enum FieldUpdate<Value: Sendable & Hashable>: Sendable, Hashable {
    case unchanged
    case set(Value)
    case cleared
}

/// The order of ``LatchkeyClient/favorites(order:pageSize:)``.
public enum FavoritesOrder: String, Sendable, Hashable {
    /// Most recently favorited first.
    case recent
    /// By ``Favorite/position``.
    case position
}
