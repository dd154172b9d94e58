/// An Apple `/auth/token` call as the mock received it.
public struct AppleTokenExchangeCall: Sendable, Codable, Equatable {
    public var clientID: String
    public var clientSecret: String
    public var code: String
    public var grantType: String
    /// The refresh token the mock handed back, or nil when it refused the code.
    public var issuedRefreshToken: String?

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case code
        case grantType = "grant_type"
        case issuedRefreshToken = "issued_refresh_token"
    }
}

/// An Apple `/auth/revoke` call as the mock received it.
public struct AppleRevokeCall: Sendable, Codable, Equatable {
    public var clientID: String
    public var clientSecret: String
    public var token: String
    public var tokenTypeHint: String?
    /// Whether the mock answered 200 (false while it was told to fail).
    public var succeeded: Bool

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case token
        case tokenTypeHint = "token_type_hint"
        case succeeded
    }
}

/// Everything the mock recorded, for tests and for the local stack's curious developer.
public struct MockCallLog: Sendable, Codable, Equatable {
    public var jwksFetches: [String: Int] = [:]
    public var tokenInfoCalls = 0
    public var userInfoCalls = 0
    public var appleTokenExchanges: [AppleTokenExchangeCall] = []
    public var appleRevocations: [AppleRevokeCall] = []

    enum CodingKeys: String, CodingKey {
        case jwksFetches = "jwks_fetches"
        case tokenInfoCalls = "tokeninfo_calls"
        case userInfoCalls = "userinfo_calls"
        case appleTokenExchanges = "apple_token_exchanges"
        case appleRevocations = "apple_revocations"
    }
}
