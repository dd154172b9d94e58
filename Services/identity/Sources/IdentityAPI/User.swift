import FoundationEssentials
import ServiceProtocol
import TextCoding

/// A user as the API shows it (DESIGN.md section 6), plus `identities` where asked for.
public struct User: Sendable, Codable, Equatable {
    public var id: UUID
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var isAdmin: Bool
    public var isActive: Bool
    /// A guest account (DESIGN.md section 9.1): made without a provider, upgraded by its first one.
    public var isGuest: Bool
    /// The linked providers, sorted.
    public var providers: [IdentityProvider]
    public var createdAt: Date
    public var updatedAt: Date
    /// Present only in `identity.getUser`.
    public var identities: [LinkedIdentity]?

    enum CodingKeys: String, CodingKey {
        case id, email, providers, identities
        case emailVerified = "email_verified"
        case displayName = "display_name"
        case isAdmin = "is_admin"
        case isActive = "is_active"
        case isGuest = "is_guest"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public init(
        id: UUID, email: String?, emailVerified: Bool, displayName: String?, isAdmin: Bool, isActive: Bool,
        isGuest: Bool = false, providers: [IdentityProvider], createdAt: Date, updatedAt: Date, identities: [LinkedIdentity]? = nil
    ) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.isAdmin = isAdmin
        self.isActive = isActive
        self.isGuest = isGuest
        self.providers = providers
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.identities = identities
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(UUID.self, forKey: .id)
        self.email = try container.decodeIfPresent(String.self, forKey: .email)
        self.emailVerified = try container.decode(Bool.self, forKey: .emailVerified)
        self.displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        self.isAdmin = try container.decode(Bool.self, forKey: .isAdmin)
        self.isActive = try container.decode(Bool.self, forKey: .isActive)
        self.isGuest = try container.decodeIfPresent(Bool.self, forKey: .isGuest) ?? false
        self.providers = try container.decode([IdentityProvider].self, forKey: .providers)
        self.createdAt = try container.decodeTimestamp(forKey: .createdAt)
        self.updatedAt = try container.decodeTimestamp(forKey: .updatedAt)
        self.identities = try container.decodeIfPresent([LinkedIdentity].self, forKey: .identities)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id.lowercasedText, forKey: .id)
        try container.encode(self.email, forKey: .email)
        try container.encode(self.emailVerified, forKey: .emailVerified)
        try container.encode(self.displayName, forKey: .displayName)
        try container.encode(self.isAdmin, forKey: .isAdmin)
        try container.encode(self.isActive, forKey: .isActive)
        try container.encode(self.isGuest, forKey: .isGuest)
        try container.encode(self.providers, forKey: .providers)
        try container.encodeTimestamp(self.createdAt, forKey: .createdAt)
        try container.encodeTimestamp(self.updatedAt, forKey: .updatedAt)
        try container.encodeIfPresent(self.identities, forKey: .identities)
    }
}

/// One provider identity of a user.
public struct LinkedIdentity: Sendable, Codable, Equatable {
    public var provider: IdentityProvider
    public var subject: String
    public var email: String?
    public var emailVerified: Bool
    public var isPrivateEmail: Bool
    /// Apple's private relay forwards email to the person (false after Apple's `email-disabled`);
    /// for the admin only, never used for linking.
    public var emailForwarding: Bool
    public var createdAt: Date
    public var lastSignInAt: Date

    enum CodingKeys: String, CodingKey {
        case provider, subject, email
        case emailVerified = "email_verified"
        case isPrivateEmail = "is_private_email"
        case emailForwarding = "email_forwarding"
        case createdAt = "created_at"
        case lastSignInAt = "last_sign_in_at"
    }

    public init(
        provider: IdentityProvider, subject: String, email: String?, emailVerified: Bool, isPrivateEmail: Bool,
        emailForwarding: Bool = true, createdAt: Date, lastSignInAt: Date
    ) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.emailForwarding = emailForwarding
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.provider = try container.decode(IdentityProvider.self, forKey: .provider)
        self.subject = try container.decode(String.self, forKey: .subject)
        self.email = try container.decodeIfPresent(String.self, forKey: .email)
        self.emailVerified = try container.decode(Bool.self, forKey: .emailVerified)
        self.isPrivateEmail = try container.decode(Bool.self, forKey: .isPrivateEmail)
        self.emailForwarding = try container.decodeIfPresent(Bool.self, forKey: .emailForwarding) ?? true
        self.createdAt = try container.decodeTimestamp(forKey: .createdAt)
        self.lastSignInAt = try container.decodeTimestamp(forKey: .lastSignInAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.provider, forKey: .provider)
        try container.encode(self.subject, forKey: .subject)
        try container.encode(self.email, forKey: .email)
        try container.encode(self.emailVerified, forKey: .emailVerified)
        try container.encode(self.isPrivateEmail, forKey: .isPrivateEmail)
        try container.encode(self.emailForwarding, forKey: .emailForwarding)
        try container.encodeTimestamp(self.createdAt, forKey: .createdAt)
        try container.encodeTimestamp(self.lastSignInAt, forKey: .lastSignInAt)
    }
}
