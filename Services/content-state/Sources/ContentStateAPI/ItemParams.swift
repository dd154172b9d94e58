import FoundationEssentials

/// Params of the methods about one item of one user: `content.favorites.remove`,
/// `.toggle`, `content.read.mark`, `.unmark`, `content.unlikes.put`, `.remove`.
public struct ItemParams: Codable, Sendable, Hashable {
    /// The user the gateway verified (the access token's subject).
    public var userID: UUID
    public var itemID: String

    public init(userID: UUID, itemID: String) {
        self.userID = userID
        self.itemID = itemID
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case itemID = "item_id"
    }
}

/// Params of the methods about a user as a whole: `content.user.delete`.
public struct UserParams: Codable, Sendable, Hashable {
    public var userID: UUID

    public init(userID: UUID) {
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
    }
}

/// Params of a list ordered by time: `content.read.list`, `content.unlikes.list`.
public struct PageParams: Codable, Sendable, Hashable {
    public var userID: UUID
    /// 1–200; 50 when absent.
    public var limit: Int?
    /// The `next_cursor` of the previous page; absent for the first page.
    public var cursor: String?

    public init(userID: UUID, limit: Int? = nil, cursor: String? = nil) {
        self.userID = userID
        self.limit = limit
        self.cursor = cursor
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case limit, cursor
    }
}

/// The result of a removal (`content.favorites.remove`, `content.read.unmark`,
/// `content.unlikes.remove`): whether anything was there to remove.
public struct RemovalResult: Codable, Sendable, Hashable {
    public var changed: Bool

    public init(changed: Bool) {
        self.changed = changed
    }
}

/// The result of `content.user.delete`: how many items had state (tombstones included).
public struct UserDeletionResult: Codable, Sendable, Hashable {
    public var deleted: Int

    public init(deleted: Int) {
        self.deleted = deleted
    }
}

/// `content.user.counts` result: the user's current favorites, read marks and unlikes.
public struct UserContentCounts: Codable, Sendable, Hashable {
    public var favorites: Int
    public var read: Int
    public var unlikes: Int

    public init(favorites: Int, read: Int, unlikes: Int) {
        self.favorites = favorites
        self.read = read
        self.unlikes = unlikes
    }
}

/// `content.user.merge` params: the guest (`user_id`) whose state merges into `into_user_id`.
public struct UserMergeParams: Codable, Sendable, Hashable {
    public var userID: UUID
    public var intoUserID: UUID

    public init(userID: UUID, intoUserID: UUID) {
        self.userID = userID
        self.intoUserID = intoUserID
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case intoUserID = "into_user_id"
    }
}

/// `content.user.merge` result: the user the guest was merged into (on a repeat, the first
/// merge's), and how many of its items the merge changed, per kind.
public struct UserMergeResult: Codable, Sendable, Hashable {
    public var intoUserID: UUID
    public var changed: UserContentCounts

    public init(intoUserID: UUID, changed: UserContentCounts) {
        self.intoUserID = intoUserID
        self.changed = changed
    }

    enum CodingKeys: String, CodingKey {
        case intoUserID = "into_user_id"
        case changed
    }
}
