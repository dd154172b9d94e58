import Foundation

/// What an opaque Google access token minted by the mock stands for: tokeninfo and
/// userinfo answer from it.
public struct GoogleAccessTokenGrant: Sendable, Codable {
    public var subject: String
    /// The client the token was issued to (`aud` and `azp` in tokeninfo).
    public var audience: String
    public var email: String?
    public var emailVerified: Bool
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case subject = "sub"
        case audience = "aud"
        case email
        case emailVerified = "email_verified"
        case name
        case givenName = "given_name"
        case familyName = "family_name"
        case expiresAt = "expires_at"
    }

    public init(
        subject: String, audience: String, email: String? = nil, emailVerified: Bool = true, name: String? = nil,
        givenName: String? = nil, familyName: String? = nil, expiresAt: Date = Date().addingTimeInterval(3600)
    ) {
        self.subject = subject
        self.audience = audience
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.expiresAt = expiresAt
    }
}
