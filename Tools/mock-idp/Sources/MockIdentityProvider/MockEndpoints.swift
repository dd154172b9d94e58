/// The URLs of a running mock, to put into the identity service's configuration
/// (`APPLE_JWKS_URL`, `GOOGLE_TOKENINFO_URL`, ...).
public struct MockEndpoints: Sendable {
    public let baseURL: String

    public init(baseURL: String) {
        self.baseURL = baseURL
    }

    public var appleJWKS: String { self.baseURL + "/apple/auth/keys" }
    public var appleToken: String { self.baseURL + "/apple/auth/token" }
    public var appleRevoke: String { self.baseURL + "/apple/auth/revoke" }
    public var googleJWKS: String { self.baseURL + "/google/oauth2/v3/certs" }
    public var googleTokenInfo: String { self.baseURL + "/google/tokeninfo" }
    public var googleUserInfo: String { self.baseURL + "/google/userinfo" }

    /// The identity service's environment variables pointing at this mock.
    public var environment: [String: String] {
        [
            "APPLE_JWKS_URL": self.appleJWKS, "APPLE_TOKEN_URL": self.appleToken,
            "APPLE_REVOKE_URL": self.appleRevoke, "GOOGLE_JWKS_URL": self.googleJWKS,
            "GOOGLE_TOKENINFO_URL": self.googleTokenInfo, "GOOGLE_USERINFO_URL": self.googleUserInfo,
        ]
    }
}
