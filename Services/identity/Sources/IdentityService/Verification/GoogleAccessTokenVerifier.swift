import FoundationEssentials

/// Accepts a Google OAuth access token only after tokeninfo shows it was issued to one of our
/// client IDs (an access token by itself proves nothing about its audience), then reads the
/// profile from userinfo.
struct GoogleAccessTokenVerifier: Sendable {
    let http: ProviderHTTP
    let tokenInfoURL: String
    let userInfoURL: String
    let audiences: [String]

    /// tokeninfo's answer; Google writes numbers and booleans as strings here.
    private struct TokenInfo: Decodable {
        var aud: String?
        var azp: String?
        var sub: String?
        var expires_in: FlexibleString?
    }

    private struct UserInfo: Decodable {
        var sub: String
        var email: String?
        var email_verified: FlexibleBool?
        var name: String?
        var given_name: String?
        var family_name: String?
    }

    func verify(_ accessToken: String, nonce: String?) async throws(IdentityError) -> VerifiedIdentity {
        guard !accessToken.isEmpty, accessToken.utf8.count <= SignedTokenVerifier.maximumTokenLength else {
            throw .invalidToken(reason: "empty or oversized access token")
        }
        // An access token carries no nonce, so a request that wants one bound cannot be satisfied.
        guard nonce == nil else { throw .invalidToken(reason: "nonce with an access token") }
        let infoReply = try await self.http.postForm(self.tokenInfoURL, [("access_token", accessToken)], provider: .google)
        switch infoReply.status {
        case 200: break
        case 400, 401: throw .invalidToken(reason: "tokeninfo refused the access token")
        default: throw .providerUnavailable(.google, reason: "tokeninfo answered \(infoReply.status)")
        }
        guard let info = try? infoReply.decode(TokenInfo.self) else {
            throw .providerUnavailable(.google, reason: "tokeninfo answer unreadable")
        }
        guard let audience = info.aud ?? info.azp, self.audiences.contains(audience) else {
            throw .invalidToken(reason: "access token issued to another client")
        }
        if let expiresIn = info.expires_in.flatMap({ Int($0.value) }), expiresIn <= 0 {
            throw .invalidToken(reason: "access token expired")
        }
        let userReply = try await self.http.get(
            self.userInfoURL, headers: [("Authorization", "Bearer \(accessToken)"), ("Accept", "application/json")],
            provider: .google)
        switch userReply.status {
        case 200: break
        case 400, 401, 403: throw .invalidToken(reason: "userinfo refused the access token")
        default: throw .providerUnavailable(.google, reason: "userinfo answered \(userReply.status)")
        }
        guard let user = try? userReply.decode(UserInfo.self) else {
            throw .providerUnavailable(.google, reason: "userinfo answer unreadable")
        }
        guard !user.sub.isEmpty, info.sub == nil || info.sub == user.sub else { throw .invalidToken(reason: "subject mismatch") }
        let name = user.name ?? [user.given_name, user.family_name].compactMap { $0 }.joined(separator: " ")
        return VerifiedIdentity(
            provider: .google, subject: user.sub, email: user.email, emailVerified: user.email_verified?.value ?? false,
            isPrivateEmail: false, name: name.isEmpty ? nil : name, audience: audience)
    }
}

/// A JSON string or number, read as text.
struct FlexibleString: Decodable {
    var value: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let int = try? container.decode(Int.self) {
            self.value = String(int)
        } else {
            self.value = try container.decode(String.self)
        }
    }
}

/// A JSON boolean or the strings "true" / "false".
struct FlexibleBool: Decodable {
    var value: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            self.value = bool
        } else {
            self.value = try container.decode(String.self).lowercased() == "true"
        }
    }
}
