import FoundationEssentials
import TextCoding

/// What a client presents to prove a provider identity: the provider's token (Apple
/// `identity_token`; Google `id_token` or `access_token`), and what only the client knows
/// (the nonce it sent, the name Apple gave it once, Apple's authorization code).
public struct ProviderCredential: Sendable, Codable, Equatable {
    public var provider: IdentityProvider
    /// Apple's identity token or Google's ID token (`identity_token`, or `id_token`).
    public var identityToken: String?
    /// Google OAuth access token, used only when no ID token is given.
    public var accessToken: String?
    public var nonce: String?
    /// `full_name`: a string or `{"given_name","family_name"}`; normalised to one string.
    public var fullName: String?
    /// The email the client saw; used only when the token carries none, and never as verified.
    public var email: String?
    /// Apple's one-time authorization code, exchanged for a refresh token when Apple REST is configured.
    public var authorizationCode: String?

    enum CodingKeys: String, CodingKey {
        case provider
        case identityToken = "identity_token"
        case idToken = "id_token"
        case accessToken = "access_token"
        case nonce
        case fullName = "full_name"
        case email
        case authorizationCode = "authorization_code"
    }

    public init(
        provider: IdentityProvider, identityToken: String? = nil, accessToken: String? = nil, nonce: String? = nil,
        fullName: String? = nil, email: String? = nil, authorizationCode: String? = nil
    ) {
        self.provider = provider
        self.identityToken = identityToken
        self.accessToken = accessToken
        self.nonce = nonce
        self.fullName = fullName
        self.email = email
        self.authorizationCode = authorizationCode
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.provider = try container.decode(IdentityProvider.self, forKey: .provider)
        self.identityToken =
            try container.decodeIfPresent(String.self, forKey: .identityToken)
            ?? container.decodeIfPresent(String.self, forKey: .idToken)
        self.accessToken = try container.decodeIfPresent(String.self, forKey: .accessToken)
        self.nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        self.fullName = try container.decodeIfPresent(FullName.self, forKey: .fullName)?.text
        self.email = try container.decodeIfPresent(String.self, forKey: .email)
        self.authorizationCode = try container.decodeIfPresent(String.self, forKey: .authorizationCode)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.provider, forKey: .provider)
        try container.encodeIfPresent(self.identityToken, forKey: .identityToken)
        try container.encodeIfPresent(self.accessToken, forKey: .accessToken)
        try container.encodeIfPresent(self.nonce, forKey: .nonce)
        try container.encodeIfPresent(self.fullName, forKey: .fullName)
        try container.encodeIfPresent(self.email, forKey: .email)
        try container.encodeIfPresent(self.authorizationCode, forKey: .authorizationCode)
    }
}

/// Apple hands the app the name as components; clients may send those or a ready string.
struct FullName: Decodable {
    var text: String

    private enum Keys: String, CodingKey {
        case givenName = "given_name"
        case familyName = "family_name"
    }

    init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self.text = text
            return
        }
        let container = try decoder.container(keyedBy: Keys.self)
        let parts = [
            try container.decodeIfPresent(String.self, forKey: .givenName),
            try container.decodeIfPresent(String.self, forKey: .familyName),
        ]
        self.text = parts.compactMap { $0?.trimmingWhitespace() }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}
