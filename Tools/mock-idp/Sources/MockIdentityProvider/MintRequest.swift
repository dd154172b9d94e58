import Foundation

/// What a test or the local stack asks the mock to mint: an identity token for one subject.
/// Unset members get realistic defaults (issued now, valid ten minutes, the provider's issuer).
public struct MintRequest: Sendable, Codable {
    public var subject: String
    public var audience: String
    public var email: String?
    /// Defaults to `true` when an email is given.
    public var emailVerified: MockBool?
    public var isPrivateEmail: MockBool?
    public var nonce: String?
    /// Google only: defaults to the audience.
    public var authorizedParty: String?
    /// Google only: the `name` claim.
    public var name: String?
    public var issuer: String?
    public var issuedAt: Date?
    public var lifetimeSeconds: Int?
    /// A deliberately bad token of this kind instead of a good one.
    public var defect: TokenDefect?

    enum CodingKeys: String, CodingKey {
        case subject = "sub"
        case audience = "aud"
        case email
        case emailVerified = "email_verified"
        case isPrivateEmail = "is_private_email"
        case nonce
        case authorizedParty = "azp"
        case name
        case issuer = "iss"
        case issuedAt = "iat"
        case lifetimeSeconds = "lifetime_seconds"
        case defect
    }

    public init(
        subject: String, audience: String, email: String? = nil, emailVerified: MockBool? = nil,
        isPrivateEmail: MockBool? = nil, nonce: String? = nil, authorizedParty: String? = nil, name: String? = nil,
        issuer: String? = nil, issuedAt: Date? = nil, lifetimeSeconds: Int? = nil, defect: TokenDefect? = nil
    ) {
        self.subject = subject
        self.audience = audience
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.nonce = nonce
        self.authorizedParty = authorizedParty
        self.name = name
        self.issuer = issuer
        self.issuedAt = issuedAt
        self.lifetimeSeconds = lifetimeSeconds
        self.defect = defect
    }
}

/// The kinds of bad token the mock mints on purpose, so that tests can show each is refused.
public enum TokenDefect: String, Sendable, Codable, CaseIterable {
    /// Signed by a key that is not in the JWKS, under the `kid` of one that is.
    case wrongKey = "wrong_key"
    /// Signed by a key whose `kid` the JWKS does not list.
    case unknownKid = "unknown_kid"
    /// `exp` ten minutes in the past.
    case expired
    /// `iat` ten minutes in the future.
    case notYetValid = "not_yet_valid"
    /// `aud` of some other app.
    case wrongAudience = "wrong_audience"
    /// `iss` of some other provider.
    case wrongIssuer = "wrong_issuer"
    /// `alg: none` with an empty signature.
    case algNone = "alg_none"
    /// HS256, keyed with the provider's public key PEM (the RS/HS confusion attack).
    case hs256WithPublicKey = "hs256_with_public_key"
    /// A good token whose payload was changed after signing.
    case tamperedPayload = "tampered_payload"
    /// Not a JWT at all.
    case garbage
    /// The empty string.
    case empty
}
