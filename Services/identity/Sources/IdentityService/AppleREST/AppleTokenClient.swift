import FoundationEssentials
import Logging

/// Calls Apple's REST endpoints: exchanges an authorization code for a refresh token, and
/// revokes a refresh token.
struct AppleTokenClient: Sendable {
    /// How a revocation ended.
    enum RevokeOutcome: Equatable {
        case revoked
        /// Apple no longer knows the token: nothing left to revoke.
        case alreadyInvalid
        /// Worth trying again later.
        case failed(String)
    }

    let http: ProviderHTTP
    let secrets: AppleClientSecret
    let tokenURL: String
    let revokeURL: String

    /// What Apple answers for a code: the refresh token, and the id token that says whose it is.
    struct Exchange: Decodable {
        var refreshToken: String?
        var idToken: String?

        enum CodingKeys: String, CodingKey {
            case refreshToken = "refresh_token"
            case idToken = "id_token"
        }
    }

    /// Apple's answer for `code`, or nil when Apple refuses the code.
    func exchange(code: String, clientID: String) async throws -> Exchange? {
        let secret = try await self.secrets.secret(for: clientID)
        let reply = try await self.http.postForm(
            self.tokenURL,
            [("client_id", clientID), ("client_secret", secret), ("code", code), ("grant_type", "authorization_code")],
            provider: .apple)
        switch reply.status {
        case 200: return try? reply.decode(Exchange.self)
        case 400: return nil
        default: throw IdentityError.providerUnavailable(.apple, reason: "token endpoint answered \(reply.status)")
        }
    }

    func revoke(refreshToken: String, clientID: String) async -> RevokeOutcome {
        do {
            let secret = try await self.secrets.secret(for: clientID)
            let reply = try await self.http.postForm(
                self.revokeURL,
                [
                    ("client_id", clientID), ("client_secret", secret), ("token", refreshToken),
                    ("token_type_hint", "refresh_token"),
                ], provider: .apple)
            switch reply.status {
            case 200: return .revoked
            case 400: return .alreadyInvalid
            default: return .failed("revoke answered \(reply.status)")
            }
        } catch {
            return .failed("\(error)")
        }
    }
}
