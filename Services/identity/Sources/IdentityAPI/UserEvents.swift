import AuditAPI
import FoundationEssentials

/// The user lifecycle events other services read (DESIGN.md section 9.4).
public enum UserEventType: String, Codable, Sendable, CaseIterable {
    case userCreated = "user.created"
    case userUpdated = "user.updated"
    case userDeactivated = "user.deactivated"
    case userActivated = "user.activated"
    case userDeleted = "user.deleted"
    case sessionsRevoked = "sessions.revoked"
    case identityLinked = "identity.linked"
    case identityUnlinked = "identity.unlinked"
    case guestUpgraded = "guest.upgraded"
    case guestMerged = "guest.merged"
}

/// One event of the feed: `data` holds ids and facts, never an email, a name or a token
/// (a reader that needs the profile asks `identity.getUser`).
public struct UserEvent: Codable, Sendable, Equatable {
    public var id: UUID
    public var type: String
    public var userID: UUID
    /// RFC 3339, microseconds.
    public var occurredAt: String
    public var data: [String: AuditValue]
    /// Where this event is in the feed: pass it as `since` to read what follows.
    public var cursor: String

    enum CodingKeys: String, CodingKey {
        case id, type, data, cursor
        case userID = "user_id"
        case occurredAt = "occurred_at"
    }

    public init(id: UUID, type: String, userID: UUID, occurredAt: String, data: [String: AuditValue], cursor: String) {
        self.id = id
        self.type = type
        self.userID = userID
        self.occurredAt = occurredAt
        self.data = data
        self.cursor = cursor
    }
}

/// `identity.events.read` params: the events after `since` (absent: from the oldest kept), at
/// most `limit` (1–1000, default 100).
public struct EventsReadParams: Codable, Sendable, Equatable {
    public var since: String?
    public var limit: Int?

    public init(since: String? = nil, limit: Int? = nil) {
        self.since = since
        self.limit = limit
    }
}

/// `identity.events.read` result: events in commit order; `next_cursor` is where to read on
/// (the last event's cursor, or `since` again when there was none); `has_more` when the page
/// was full.
public struct EventsPage: Codable, Sendable, Equatable {
    public var events: [UserEvent]
    public var nextCursor: String?
    public var hasMore: Bool

    enum CodingKeys: String, CodingKey {
        case events
        case nextCursor = "next_cursor"
        case hasMore = "has_more"
    }

    public init(events: [UserEvent], nextCursor: String?, hasMore: Bool) {
        self.events = events
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.events, forKey: .events)
        try container.encode(self.nextCursor, forKey: .nextCursor)
        try container.encode(self.hasMore, forKey: .hasMore)
    }
}

/// `identity.events.sessionsRevoked` params: the event's id (a retry appends it once), whose
/// sessions, and why (`logout`, `admin`).
public struct SessionsRevokedParams: Codable, Sendable, Equatable {
    public var id: UUID
    public var userID: UUID
    public var reason: String

    enum CodingKeys: String, CodingKey {
        case id, reason
        case userID = "user_id"
    }

    public init(id: UUID, userID: UUID, reason: String) {
        self.id = id
        self.userID = userID
        self.reason = reason
    }
}
