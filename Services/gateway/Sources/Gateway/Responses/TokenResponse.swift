import HTTPTypes
import Hummingbird
import IdentityAPI
import TokensAPI

/// The public token response of sign-in and refresh: the pair `tokens` issued and the user;
/// `response()` sends it uncacheable.
struct TokenResponse: Encodable {
    var pair: TokenPair
    var user: User
    var isNewUser: Bool?

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case expiresAt = "expires_at"
        case refreshToken = "refresh_token"
        case refreshExpiresAt = "refresh_expires_at"
        case user
        case isNewUser = "is_new_user"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.pair.accessToken, forKey: .accessToken)
        try container.encode("Bearer", forKey: .tokenType)
        try container.encode(self.pair.expiresIn, forKey: .expiresIn)
        try container.encode(self.pair.expiresAt, forKey: .expiresAt)
        try container.encode(self.pair.refreshToken, forKey: .refreshToken)
        try container.encode(self.pair.refreshExpiresAt, forKey: .refreshExpiresAt)
        try container.encode(PublicUser(user: self.user), forKey: .user)
        try container.encodeIfPresent(self.isNewUser, forKey: .isNewUser)
    }

    /// The 200 response: tokens must not be kept by any cache (RFC 6749 section 5.1).
    func response() throws -> Response {
        var response = try jsonResponse(self)
        response.headers[.cacheControl] = "no-store"
        response.headers[.pragma] = "no-cache"
        return response
    }
}

extension HTTPField.Name {
    static let pragma = Self("Pragma")!
}
