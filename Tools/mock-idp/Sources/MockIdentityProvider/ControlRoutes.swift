import Foundation
import Hummingbird

/// `/mock/...`: what tests in another process, the local stack and benchmarks use to mint
/// tokens, roll keys and read the call log.
struct ControlRoutes: Sendable {
    let provider: MockIdentityProvider

    func add(to router: Router<BasicRequestContext>) {
        router.post("mock/:provider/identity-token") { request, context in
            guard let which = context.parameters.get("provider").flatMap(MockProvider.init(rawValue:)) else {
                return try MockHTTP.error("unknown_provider", status: .notFound)
            }
            let mint = try await MockHTTP.decodeJSON(MintRequest.self, from: request)
            let token = try await self.provider.mintIdentityToken(which, mint)
            return try MockHTTP.json(["token": token])
        }
        // The body to post to `/api/v1/auth/apple/notifications` as it is: `{"payload":"<JWS>"}`.
        router.post("mock/apple/notification") { request, _ in
            let mint = try await MockHTTP.decodeJSON(AppleNotificationMintRequest.self, from: request)
            return try MockHTTP.json(["payload": try await self.provider.mintAppleNotification(mint)])
        }
        // An Apple authorization code for `{"sub": ..., "aud": ...}`, as the app gets it with the identity token.
        router.post("mock/apple/authorization-code") { request, _ in
            let grant = try await MockHTTP.decodeJSON(AppleAuthorizationCodeRequest.self, from: request)
            return try MockHTTP.json(["code": await self.provider.mintAppleAuthorizationCode(subject: grant.sub, audience: grant.aud)])
        }
        router.post("mock/google/access-token") { request, _ in
            let grant = try await MockHTTP.decodeJSON(GoogleAccessTokenGrantRequest.self, from: request)
            let token = await self.provider.mintGoogleAccessToken(grant.grant)
            return try MockHTTP.json(["access_token": token])
        }
        router.post("mock/:provider/rotate") { request, context in
            guard let which = context.parameters.get("provider").flatMap(MockProvider.init(rawValue:)) else {
                return try MockHTTP.error("unknown_provider", status: .notFound)
            }
            let keep = request.uri.queryParameters["keep_old"] == "true"
            let kid = try await self.provider.rotateKeys(which, retiringOld: !keep)
            return try MockHTTP.json(["kid": kid])
        }
        router.get("mock/calls") { _, _ in
            try MockHTTP.json(encodable: await self.provider.callLog)
        }
    }
}

/// The JSON body of `POST /mock/apple/authorization-code`.
struct AppleAuthorizationCodeRequest: Decodable {
    var sub: String
    var aud: String
}

/// The JSON body of `POST /mock/google/access-token`; `expires_in` defaults to an hour.
struct GoogleAccessTokenGrantRequest: Decodable {
    var sub: String
    var aud: String
    var email: String?
    var email_verified: Bool?
    var name: String?
    var expires_in: Int?

    var grant: GoogleAccessTokenGrant {
        GoogleAccessTokenGrant(
            subject: self.sub, audience: self.aud, email: self.email, emailVerified: self.email_verified ?? true,
            name: self.name, expiresAt: Date().addingTimeInterval(TimeInterval(self.expires_in ?? 3600)))
    }
}
