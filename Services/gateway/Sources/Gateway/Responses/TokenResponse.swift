import ContentStateAPI
import HTTPTypes
import Hummingbird
import IdentityAPI
import ServiceProtocol
import TokensAPI

/// The public token response of sign-in and refresh: the pair `tokens` issued and the user;
/// `response()` sends it uncacheable.
struct TokenResponse: Encodable {
    var pair: TokenPair
    var user: User
    var isNewUser: Bool?
    /// A guest's sign-in that made the guest this user (DESIGN.md section 9.1).
    var upgradedGuest: Bool? = nil
    /// A guest's sign-in whose state merged into this user: how many of its items changed.
    var mergedGuest: UserContentCounts? = nil

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case expiresAt = "expires_at"
        case refreshToken = "refresh_token"
        case refreshExpiresAt = "refresh_expires_at"
        case user
        case isNewUser = "is_new_user"
        case upgradedGuest = "upgraded_guest"
        case mergedGuest = "merged_guest"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.pair.accessToken, forKey: .accessToken)
        try container.encode(self.pair.tokenType, forKey: .tokenType)
        try container.encode(self.pair.expiresIn, forKey: .expiresIn)
        try container.encode(self.pair.expiresAt, forKey: .expiresAt)
        try container.encode(self.pair.refreshToken, forKey: .refreshToken)
        try container.encode(self.pair.refreshExpiresAt, forKey: .refreshExpiresAt)
        try container.encode(PublicUser(user: self.user), forKey: .user)
        try container.encodeIfPresent(self.isNewUser, forKey: .isNewUser)
        try container.encodeIfPresent(self.upgradedGuest, forKey: .upgradedGuest)
        try container.encodeIfPresent(self.mergedGuest, forKey: .mergedGuest)
    }

    /// The JSON `encode(to:)` gives, written by hand: every sign-in and refresh answers with it.
    var rawJSON: RawJSON {
        var json = RawJSON(capacity: 1024)
        json.append(#"{"access_token":"#)
        json.append(string: self.pair.accessToken)
        json.append(#","token_type":"#)
        json.append(string: self.pair.tokenType)
        json.append(#","expires_in":"#)
        json.append(integer: Int64(self.pair.expiresIn))
        json.append(#","expires_at":"#)
        json.append(string: self.pair.expiresAt)
        json.append(#","refresh_token":"#)
        json.append(string: self.pair.refreshToken)
        json.append(#","refresh_expires_at":"#)
        json.append(string: self.pair.refreshExpiresAt)
        json.append(#","user":"#)
        PublicUser(user: self.user).write(to: &json)
        if let isNewUser = self.isNewUser {
            json.append(#","is_new_user":"#)
            json.append(bool: isNewUser)
        }
        if let upgradedGuest = self.upgradedGuest {
            json.append(#","upgraded_guest":"#)
            json.append(bool: upgradedGuest)
        }
        if let merged = self.mergedGuest {
            json.append(#","merged_guest":{"favorites":"#)
            json.append(integer: Int64(merged.favorites))
            json.append(#","read":"#)
            json.append(integer: Int64(merged.read))
            json.append(#","unlikes":"#)
            json.append(integer: Int64(merged.unlikes))
            json.append("}")
        }
        json.append("}")
        return json
    }

    /// The 200 response: tokens must not be kept by any cache (RFC 6749 section 5.1).
    func response() -> Response {
        var response = jsonResponse(self.rawJSON.bytes)
        response.headers[.cacheControl] = "no-store"
        response.headers[.pragma] = "no-cache"
        return response
    }
}

extension HTTPField.Name {
    static let pragma = Self("Pragma")!
}
