import Foundation
import Testing

/// What an app reads from token responses and refusals: when its tokens expire, that they must
/// not be cached, and from a 401 whether to refresh (`token_expired`) or sign in again
/// (`session_revoked`).
@Suite("End to end: token signals", .timeLimit(.minutes(5)))
struct TokenSignalsTests {
    static func date(_ value: Any?) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return (value as? String).flatMap(formatter.date(from:))
    }

    /// Checks the expiry members and the no-store headers of a token response.
    func expectTokenResponse(_ reply: Stack.Reply, accessTTL: Double, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(reply.status == 200, sourceLocation: sourceLocation)
        #expect(reply.header("Cache-Control") == "no-store", sourceLocation: sourceLocation)
        #expect(reply.header("Pragma") == "no-cache", sourceLocation: sourceLocation)
        let expiresAt = try #require(Self.date(reply.json["expires_at"]), sourceLocation: sourceLocation)
        let refreshExpiresAt = try #require(Self.date(reply.json["refresh_expires_at"]), sourceLocation: sourceLocation)
        #expect(reply.json["expires_in"] as? Int == Int(accessTTL), sourceLocation: sourceLocation)
        #expect(abs(expiresAt.timeIntervalSinceNow - accessTTL) < 5, sourceLocation: sourceLocation)
        #expect(abs(refreshExpiresAt.timeIntervalSinceNow - 2_592_000) < 60, sourceLocation: sourceLocation)
    }

    @Test func tokenResponsesSayWhenTokensExpireAndAreNotCached() async throws {
        try await Stack.with { stack in
            let identityToken = try await stack.appleToken(subject: "apple-\(UUID().uuidString)")
            let signIn = try await stack.request("POST", "/api/v1/auth/apple", body: ["identity_token": identityToken])
            try self.expectTokenResponse(signIn, accessTTL: 900)
            let session = try Session(signIn.json)
            let refresh = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": session.refreshToken])
            try self.expectTokenResponse(refresh, accessTTL: 900)
            // The session's end does not move with a refresh.
            #expect(refresh.json["refresh_expires_at"] as? String == signIn.json["refresh_expires_at"] as? String)
            // Other responses keep their caching rules.
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken).header("Pragma") == nil)
        }
    }

    @Test func aRefusedAccessTokenSaysWhetherToRefreshOrSignInAgain() async throws {
        try await Stack.with(gatewayEnvironment: ["TOKEN_CLOCK_LEEWAY": "0"], tokensEnvironment: ["ACCESS_TOKEN_TTL": "10"]) { stack in
            let session = try await stack.signInApple()
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken).status == 200)

            // Past `exp`: token_expired, on every authenticated route, and a refresh mends it.
            let deadline = ContinuousClock.now + .seconds(30)
            var expired: Stack.Reply?
            while ContinuousClock.now < deadline {
                let reply = try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken)
                if reply.status != 200 {
                    expired = reply
                    break
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            let reply = try #require(expired)
            #expect(reply.status == 401)
            #expect(reply.errorCode == "token_expired")
            #expect(reply.header("WWW-Authenticate") == "Bearer")
            let message = (reply.json["error"] as? [String: Any])?["message"] as? String
            #expect(message?.contains("refresh") == true)
            #expect(try await stack.request("GET", "/api/v1/favorites", token: session.accessToken).errorCode == "token_expired")
            let refreshed = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": session.refreshToken])
            #expect(refreshed.status == 200)
            let next = try Session(refreshed.json)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: next.accessToken).status == 200)

            // Logged out: session_revoked (sign in again), also for a token of another session of the user.
            let other = try await stack.signInApple()
            #expect(try await stack.request("POST", "/api/v1/auth/logout", token: next.accessToken).status == 204)
            let revoked = try await stack.request("GET", "/api/v1/favorites", token: next.accessToken)
            #expect(revoked.status == 401)
            #expect(revoked.errorCode == "session_revoked")
            #expect(revoked.header("WWW-Authenticate") == "Bearer")

            // Missing or forged: unauthorized.
            #expect(try await stack.request("GET", "/api/v1/auth/me").errorCode == "unauthorized")
            var parts = other.accessToken.split(separator: ".").map(String.init)
            parts[2] = String(parts[2].reversed())
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: parts.joined(separator: ".")).errorCode == "unauthorized")
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: other.accessToken).status == 200)
        }
    }
}
