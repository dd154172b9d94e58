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
    /// A guest account (``LatchkeyClient/signInAsGuest()``): no provider until it signs in
    /// with Apple or Google, which upgrades it or merges it into that account.
    public var isGuest: Bool
    /// The providers linked to this user.
    public var providers: [IdentityProvider]
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, email: String?, emailVerified: Bool, displayName: String?, isAdmin: Bool, isGuest: Bool = false,
        providers: [IdentityProvider], createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.isAdmin = isAdmin
        self.isGuest = isGuest
        self.providers = providers
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, email, providers
        case emailVerified = "email_verified"
        case displayName = "display_name"
        case isAdmin = "is_admin"
        case isGuest = "is_guest"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// `is_guest` absent (a gateway before guests, or tokens stored before) is no guest.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id), email: try container.decodeIfPresent(String.self, forKey: .email),
            emailVerified: try container.decode(Bool.self, forKey: .emailVerified),
            displayName: try container.decodeIfPresent(String.self, forKey: .displayName),
            isAdmin: try container.decode(Bool.self, forKey: .isAdmin),
            isGuest: try container.decodeIfPresent(Bool.self, forKey: .isGuest) ?? false,
            providers: try container.decode([IdentityProvider].self, forKey: .providers),
            createdAt: try container.decode(Date.self, forKey: .createdAt), updatedAt: try container.decode(Date.self, forKey: .updatedAt))
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
    /// True when the client was signed in as a guest and this sign-in made the guest this
    /// account (same user, its favorites kept).
    public var upgradedGuest: Bool
    /// Set when the client was signed in as a guest and the identity had an account already:
    /// the guest's state was merged into it (how many of its items changed), the guest deleted.
    public var mergedGuest: MergedGuest?

    public init(user: User, isNewUser: Bool, upgradedGuest: Bool = false, mergedGuest: MergedGuest? = nil) {
        self.user = user
        self.isNewUser = isNewUser
        self.upgradedGuest = upgradedGuest
        self.mergedGuest = mergedGuest
    }
}

/// How many of the account's favorites, read marks and unlikes a guest's merge changed.
public struct MergedGuest: Codable, Hashable, Sendable {
    public var favorites: Int
    public var read: Int
    public var unlikes: Int

    public init(favorites: Int, read: Int, unlikes: Int) {
        self.favorites = favorites
        self.read = read
        self.unlikes = unlikes
    }
}

/// The gateway's token response (sign-in and refresh).
struct TokenResponse: Decodable, Sendable {
    var accessToken: String
    /// `Bearer`, or `DPoP` for a session bound to the device's key.
    var tokenType: String?
    /// The access token's lifetime in seconds: what the client counts expiry with.
    var expiresIn: TimeInterval?
    var expiresAt: Date
    var refreshToken: String
    var refreshExpiresAt: Date
    var user: User
    var isNewUser: Bool?
    var upgradedGuest: Bool?
    var mergedGuest: MergedGuest?

    enum CodingKeys: String, CodingKey {
        case user
        case upgradedGuest = "upgraded_guest"
        case mergedGuest = "merged_guest"
        case accessToken = "access_token"
        case tokenType = "token_type"
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
            refreshExpiresAt: self.refreshExpiresAt, receivedAt: receivedAt, lifetime: self.expiresIn.map { max(0, $0) }, user: self.user,
            tokenType: self.tokenType)
    }
}
