import Foundation

/// A sign-in provider the gateway knows (`apple`, `google`).
public struct IdentityProvider: RawRepresentable, Codable, Hashable, Sendable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let apple = IdentityProvider(rawValue: "apple")
    public static let google = IdentityProvider(rawValue: "google")
}

/// The signed-in person as the gateway describes them (`GET /api/v1/auth/me`).
public struct User: Codable, Hashable, Sendable {
    public var id: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var isAdmin: Bool
    /// The providers linked to this user.
    public var providers: [IdentityProvider]
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, email: String?, emailVerified: Bool, displayName: String?, isAdmin: Bool, providers: [IdentityProvider],
        createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.isAdmin = isAdmin
        self.providers = providers
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, email, providers
        case emailVerified = "email_verified"
        case displayName = "display_name"
        case isAdmin = "is_admin"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// One of the user's sessions (a signed-in device), from `GET /api/v1/auth/sessions`.
public struct DeviceSession: Codable, Hashable, Sendable, Identifiable {
    public var id: String
    public var deviceName: String?
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var expiresAt: Date
    /// True for the session this client is signed in with.
    public var current: Bool

    public init(id: String, deviceName: String?, createdAt: Date, lastUsedAt: Date?, expiresAt: Date, current: Bool) {
        self.id = id
        self.deviceName = deviceName
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
        self.current = current
    }

    enum CodingKeys: String, CodingKey {
        case id, current
        case deviceName = "device_name"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case expiresAt = "expires_at"
    }
}

/// What a sign-in returned besides the tokens the client keeps.
public struct SignInResult: Hashable, Sendable {
    public var user: User
    /// True when this sign-in created the user.
    public var isNewUser: Bool

    public init(user: User, isNewUser: Bool) {
        self.user = user
        self.isNewUser = isNewUser
    }
}

/// The gateway's token response (sign-in and refresh).
struct TokenResponse: Decodable, Sendable {
    var accessToken: String
    /// The access token's lifetime in seconds: what the client counts expiry with.
    var expiresIn: TimeInterval?
    var expiresAt: Date
    var refreshToken: String
    var refreshExpiresAt: Date
    var user: User
    var isNewUser: Bool?

    enum CodingKeys: String, CodingKey {
        case user
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case expiresAt = "expires_at"
        case refreshToken = "refresh_token"
        case refreshExpiresAt = "refresh_expires_at"
        case isNewUser = "is_new_user"
    }

    /// The pair to keep, received at `receivedAt` by the device's clock. Its lifetime is
    /// `expires_in` (the device's clock is never compared with `expires_at`).
    func tokens(receivedAt: Date) -> StoredTokens {
        StoredTokens(
            accessToken: self.accessToken, refreshToken: self.refreshToken, expiresAt: self.expiresAt,
            refreshExpiresAt: self.refreshExpiresAt, receivedAt: receivedAt, lifetime: self.expiresIn.map { max(0, $0) }, user: self.user)
    }
}
