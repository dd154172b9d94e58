import AuditAPI
import FoundationEssentials

/// `identity.signIn` result.
public struct SignInResult: Sendable, Codable, Equatable {
    public var user: User
    public var isNewUser: Bool

    enum CodingKeys: String, CodingKey {
        case user
        case isNewUser = "is_new_user"
    }

    public init(user: User, isNewUser: Bool) {
        self.user = user
        self.isNewUser = isNewUser
    }
}

/// `identity.link` params: the user, and the same token fields as `identity.signIn`.
public struct LinkParams: Sendable, Codable, Equatable {
    public var userID: UUID
    public var credential: ProviderCredential

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
    }

    public init(userID: UUID, credential: ProviderCredential) {
        self.userID = userID
        self.credential = credential
    }

    public init(from decoder: any Decoder) throws {
        self.userID = try decoder.container(keyedBy: CodingKeys.self).decode(UUID.self, forKey: .userID)
        self.credential = try ProviderCredential(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try self.credential.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.userID, forKey: .userID)
    }
}

/// `identity.unlink` params.
public struct UnlinkParams: Sendable, Codable, Equatable {
    public var userID: UUID
    public var provider: IdentityProvider

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case provider
    }

    public init(userID: UUID, provider: IdentityProvider) {
        self.userID = userID
        self.provider = provider
    }
}

/// Params naming one user (`identity.getUser`, `identity.deleteUser`).
public struct UserIDParams: Sendable, Codable, Equatable {
    public var userID: UUID

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
    }

    public init(userID: UUID) {
        self.userID = userID
    }
}

/// `identity.setActive` params.
public struct SetActiveParams: Sendable, Codable, Equatable {
    public var userID: UUID
    public var active: Bool

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case active
    }

    public init(userID: UUID, active: Bool) {
        self.userID = userID
        self.active = active
    }
}

/// `identity.setAdmin` params.
public struct SetAdminParams: Sendable, Codable, Equatable {
    public var userID: UUID
    public var admin: Bool

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case admin
    }

    public init(userID: UUID, admin: Bool) {
        self.userID = userID
        self.admin = admin
    }
}

/// `identity.listUsers` params: `limit` 1–200 (default 50); `guest` only guests (true) or
/// only the others (false); `min_age_seconds` only users created at least that long ago.
public struct ListUsersParams: Sendable, Codable, Equatable {
    public var query: String?
    public var limit: Int?
    public var cursor: String?
    public var guest: Bool?
    public var minAgeSeconds: Int?

    enum CodingKeys: String, CodingKey {
        case query, limit, cursor, guest
        case minAgeSeconds = "min_age_seconds"
    }

    public init(query: String? = nil, limit: Int? = nil, cursor: String? = nil, guest: Bool? = nil, minAgeSeconds: Int? = nil) {
        self.query = query
        self.limit = limit
        self.cursor = cursor
        self.guest = guest
        self.minAgeSeconds = minAgeSeconds
    }
}

/// `identity.listUsers` result.
public struct ListUsersResult: Sendable, Codable, Equatable {
    public var users: [User]
    public var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case users
        case nextCursor = "next_cursor"
    }

    public init(users: [User], nextCursor: String?) {
        self.users = users
        self.nextCursor = nextCursor
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.users, forKey: .users)
        try container.encode(self.nextCursor, forKey: .nextCursor)
    }
}

/// `identity.deleteUser` result: whether there was a user to delete.
public struct DeleteUserResult: Sendable, Codable, Equatable {
    public var deleted: Bool

    public init(deleted: Bool) {
        self.deleted = deleted
    }
}

/// `identity.deleteUser` / `identity.deleteGuest` params: the user, and who asked (the audit
/// trail's `account_deleted` `by`; absent is the user themselves).
public struct DeleteUserParams: Sendable, Codable, Equatable {
    /// Who deleted an account.
    public enum DeletedBy: String, Sendable, Codable {
        case user, admin, apple, merged
        case guestExpired = "guest_ttl"
    }

    public var userID: UUID
    public var by: DeletedBy?
    /// The account a merged guest's state went into (`by` `merged`).
    public var mergedInto: UUID?

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case by
        case mergedInto = "merged_into"
    }

    public init(userID: UUID, by: DeletedBy? = nil, mergedInto: UUID? = nil) {
        self.userID = userID
        self.by = by
        self.mergedInto = mergedInto
    }
}

/// `identity.audit.record` params: one event, named by `id` (a retry records it once).
public struct AuditRecordParams: Sendable, Codable, Equatable {
    public var id: UUID
    public var type: String
    public var userID: UUID?
    public var details: [String: AuditValue]?

    enum CodingKeys: String, CodingKey {
        case id, type, details
        case userID = "user_id"
    }

    public init(id: UUID, type: String, userID: UUID? = nil, details: [String: AuditValue]? = nil) {
        self.id = id
        self.type = type
        self.userID = userID
        self.details = details
    }
}
