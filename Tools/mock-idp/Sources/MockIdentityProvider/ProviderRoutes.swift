import Foundation
import Hummingbird

/// The endpoints a real Apple or Google would answer: JWKS, Apple token and revoke,
/// Google tokeninfo and userinfo.
struct ProviderRoutes: Sendable {
    let provider: MockIdentityProvider

    func add(to router: Router<BasicRequestContext>) {
        router.get("apple/auth/keys") { _, _ in try await self.jwks(.apple) }
        router.get("google/oauth2/v3/certs") { _, _ in try await self.jwks(.google) }
        router.post("apple/auth/token") { request, _ in try await self.appleToken(request) }
        router.post("apple/auth/revoke") { request, _ in try await self.appleRevoke(request) }
        router.get("google/tokeninfo") { request, _ in try await self.tokenInfo(request) }
        router.post("google/tokeninfo") { request, _ in try await self.tokenInfo(request) }
        router.get("google/userinfo") { request, _ in try await self.userInfo(request) }
    }

    private func jwks(_ which: MockProvider) async throws -> Response {
        guard let served = try await self.provider.servedJWKS(which) else {
            return try MockHTTP.error("temporarily_unavailable", status: .serviceUnavailable)
        }
        return try MockHTTP.json(served.jwks, headers: [.cacheControl: "public, max-age=\(served.maxAge)"])
    }

    /// Apple's form: `client_id`, `client_secret`, `code`, `grant_type` (and `redirect_uri`).
    private struct TokenForm: Decodable {
        var client_id: String
        var client_secret: String
        var code: String?
        var grant_type: String
    }

    private func appleToken(_ request: Request) async throws -> Response {
        guard let form = try? await MockHTTP.decodeForm(TokenForm.self, from: request) else {
            return try MockHTTP.error("invalid_request", status: .badRequest)
        }
        guard
            let answer = try await self.provider.exchangeAppleCode(
                clientID: form.client_id, clientSecret: form.client_secret, code: form.code ?? "",
                grantType: form.grant_type)
        else {
            return try MockHTTP.error("invalid_grant", status: .badRequest)
        }
        return try MockHTTP.json([
            "access_token": "a.mock-" + UUID().uuidString.lowercased(), "token_type": "Bearer",
            "expires_in": 3600, "refresh_token": answer.refreshToken, "id_token": answer.idToken,
        ])
    }

    private struct RevokeForm: Decodable {
        var client_id: String
        var client_secret: String
        var token: String
        var token_type_hint: String?
    }

    private func appleRevoke(_ request: Request) async throws -> Response {
        guard let form = try? await MockHTTP.decodeForm(RevokeForm.self, from: request) else {
            return try MockHTTP.error("invalid_request", status: .badRequest)
        }
        let succeeded = await self.provider.revokeApple(
            clientID: form.client_id, clientSecret: form.client_secret, token: form.token,
            tokenTypeHint: form.token_type_hint)
        return succeeded ? Response(status: .ok) : try MockHTTP.error("temporarily_unavailable", status: .serviceUnavailable)
    }

    /// Google's tokeninfo for an access token: who it was issued to, and for how long.
    private func tokenInfo(_ request: Request) async throws -> Response {
        var token = request.uri.queryParameters["access_token"].map(String.init)
        if token == nil, request.method == .post {
            struct Form: Decodable { var access_token: String }
            token = try? await MockHTTP.decodeForm(Form.self, from: request).access_token
        }
        guard let token, let grant = await self.provider.accessTokenGrant(token, countingAs: .tokenInfo) else {
            return try MockHTTP.json(["error": "invalid_token", "error_description": "Invalid Value"], status: .badRequest)
        }
        var info: [String: Any] = [
            "azp": grant.audience, "aud": grant.audience, "sub": grant.subject,
            "scope": "openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile",
            "exp": String(Int(grant.expiresAt.timeIntervalSince1970)),
            "expires_in": String(max(0, Int(grant.expiresAt.timeIntervalSinceNow))),
            "access_type": "online",
        ]
        if let email = grant.email {
            info["email"] = email
            info["email_verified"] = grant.emailVerified ? "true" : "false"
        }
        return try MockHTTP.json(info)
    }

    /// Google's userinfo for `Authorization: Bearer <access token>`.
    private func userInfo(_ request: Request) async throws -> Response {
        let header = request.headers[.authorization] ?? ""
        guard header.hasPrefix("Bearer "),
            let grant = await self.provider.accessTokenGrant(String(header.dropFirst(7)), countingAs: .userInfo)
        else {
            return try MockHTTP.json(["error": "invalid_request"], status: .unauthorized)
        }
        var info: [String: Any] = ["sub": grant.subject]
        if let email = grant.email {
            info["email"] = email
            info["email_verified"] = grant.emailVerified
        }
        if let name = grant.name { info["name"] = name }
        if let given = grant.givenName { info["given_name"] = given }
        if let family = grant.familyName { info["family_name"] = family }
        return try MockHTTP.json(info)
    }
}
