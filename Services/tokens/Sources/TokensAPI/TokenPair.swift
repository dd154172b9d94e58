import FoundationEssentials

/// What `tokens.issue` and `tokens.refresh` return: a signed access token and the opaque
/// refresh token that replaces the presented one.
public struct TokenPair: Codable, Sendable, Hashable {
    public var accessToken: String
    public var tokenType: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    /// The access token's `exp`, RFC 3339.
    public var expiresAt: String
    public var refreshToken: String
    /// When the session (and so every refresh token of it) ends, RFC 3339.
    public var refreshExpiresAt: String
    public var sessionID: UUID
    public var userID: UUID
    public var isAdmin: Bool

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case expiresAt = "expires_at"
        case refreshToken = "refresh_token"
        case refreshExpiresAt = "refresh_expires_at"
        case sessionID = "session_id"
        case userID = "user_id"
        case isAdmin = "is_admin"
    }

    public init(
        accessToken: String, tokenType: String, expiresIn: Int, expiresAt: String, refreshToken: String, refreshExpiresAt: String,
        sessionID: UUID, userID: UUID, isAdmin: Bool
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.refreshExpiresAt = refreshExpiresAt
        self.sessionID = sessionID
        self.userID = userID
        self.isAdmin = isAdmin
    }
}
