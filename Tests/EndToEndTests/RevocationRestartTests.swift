import Foundation
import TestSupport
import Testing

/// Redis is only the fast copy of revocation: restarted empty, it must not bring a revoked
/// session back. The gateway fails closed until `tokens` has re-seeded it from Postgres.
@Suite("End to end: revocation across a Redis restart", .timeLimit(.minutes(5)))
struct RevocationRestartTests {
    @Test func aSessionRevokedBeforeARestartIsRefusedAfterIt() async throws {
        try await PrivateRedisServer.with(arguments: ["--maxmemory-policy", "noeviction"]) { redis in
            try await Stack.with(redisURL: redis.url.description) { stack in
                let subject = "apple-\(UUID().uuidString)"
                let kept = try await stack.signInApple(subject: subject)
                let revoked = try await stack.signInApple(subject: subject)
                #expect(try await stack.request("POST", "/api/v1/auth/logout", token: revoked.accessToken).status == 204)
                #expect(try await stack.request("GET", "/api/v1/auth/me", token: revoked.accessToken).status == 401)
                #expect(try await stack.request("GET", "/api/v1/auth/me", token: kept.accessToken).status == 200)

                // A crash and restart: the server comes back empty on the same port.
                redis.stop()
                try await redis.start()
                try await waitUntil("tokens re-seeded Redis and the revoked session is refused again", timeout: .seconds(60)) {
                    let reply = try await stack.request("GET", "/api/v1/auth/me", token: revoked.accessToken)
                    #expect(reply.status == 401 || reply.status == 503, "a revoked session answered \(reply.status)")
                    return reply.status == 401
                }
                try await waitUntil("the live session works again") {
                    try await stack.request("GET", "/api/v1/auth/me", token: kept.accessToken).status == 200
                }
                #expect(try await stack.request("GET", "/api/v1/auth/me", token: revoked.accessToken).status == 401)
                let refresh = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": revoked.refreshToken])
                #expect(refresh.status == 401)
            }
        }
    }
}
