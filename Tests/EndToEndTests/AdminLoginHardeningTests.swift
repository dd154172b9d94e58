import Foundation
import TestSupport
import Testing

/// Admin login beyond the per-IP limit (issue 14 item 3): a global budget of failed attempts,
/// failing closed without Redis, and same-origin checks on every state-changing admin call.
@Suite("End to end: admin login hardening", .timeLimit(.minutes(5)))
struct AdminLoginHardeningTests {
    @Test func failedLoginsFromManyAddressesSpendOneBudgetAndNoRedisMeansNoLogin() async throws {
        try await PrivateRedisServer.with { redis in
            try await Stack.with(gatewayEnvironment: ["ADMIN_LOGIN_FAILURE_BUDGET": "3"], redisURL: redis.url.description) { stack in
                // Three wrong passwords, each from another address (so no per-IP limit applies).
                for index in 1...3 {
                    let wrong = try await stack.request(
                        "POST", "/admin/login", body: ["password": "guess-\(index)"], headers: ["X-Forwarded-For": "198.51.100.\(index)"])
                    #expect(wrong.status == 401)
                }
                // The budget is spent: even the right password, from a fresh address, waits for the hour.
                let locked = try await stack.request(
                    "POST", "/admin/login", body: ["password": Stack.adminPassword], headers: ["X-Forwarded-For": "198.51.100.9"])
                #expect(locked.status == 429)
                #expect(locked.errorCode == "rate_limited")
                #expect(Int(locked.header("Retry-After") ?? "") != nil)

                // Without Redis there is no counting, so no login (503), never a skipped limit.
                redis.stop()
                let unavailable = try await stack.request(
                    "POST", "/admin/login", body: ["password": Stack.adminPassword], headers: ["X-Forwarded-For": "198.51.100.10"])
                #expect(unavailable.status == 503)
                #expect(unavailable.errorCode == "service_unavailable")
                try await redis.start()
            }
        }
    }

    @Test func stateChangingAdminCallsFromAnotherSiteAreRefused() async throws {
        try await Stack.with { stack in
            let login = try await stack.request("POST", "/admin/login", body: ["password": Stack.adminPassword])
            #expect(login.status == 204)
            let cookie = String(try #require(login.header("Set-Cookie")).split(separator: ";")[0])
            let user = try await stack.signInApple(subject: "apple-\(UUID().uuidString)")
            let path = "/admin/api/users/\(user.userID)/revoke-sessions"

            // A page on another site posting with the admin's cookie (were SameSite to fail).
            for headers in [["Origin": "https://evil.example"], ["Sec-Fetch-Site": "cross-site"], ["Sec-Fetch-Site": "same-site"]] {
                let forged = try await stack.request("POST", path, headers: headers.merging(["Cookie": cookie]) { $1 })
                #expect(forged.status == 403, "\(headers)")
                #expect(forged.errorCode == "forbidden")
            }
            // The victim's session lived through every forged call: nothing was revoked.
            let alive = try await stack.request("GET", "/api/v1/auth/me", token: user.accessToken)
            #expect(alive.status == 200, "a forged revoke ended the session: \(alive.json)")
            let forgedLogin = try await stack.request(
                "POST", "/admin/login", body: ["password": Stack.adminPassword], headers: ["Origin": "https://evil.example"])
            #expect(forgedLogin.status == 403)
            // Reads are not state-changing.
            let read = try await stack.request("GET", "/admin/api/users/\(user.userID)", headers: ["Cookie": cookie, "Sec-Fetch-Site": "cross-site"])
            #expect(read.status == 200)

            // The console's own calls, and tools that are not browsers, pass.
            let host = "127.0.0.1:\(stack.gatewayPort)"
            let sameOrigin = try await stack.request(
                "POST", path, headers: ["Cookie": cookie, "Origin": "http://\(host)", "Sec-Fetch-Site": "same-origin"])
            #expect(sameOrigin.status == 200)
            // The control: the same call from the console's own page does revoke (the message
            // drops the gateway's live verdict of the check above).
            try await waitUntil("the revocation reaches the gateway") {
                try await stack.request("GET", "/api/v1/auth/me", token: user.accessToken).errorCode == "session_revoked"
            }
            #expect(try await stack.request("POST", path, headers: ["Cookie": cookie, "Origin": "http://\(host)"]).status == 200)
            #expect(try await stack.request("POST", path, headers: ["Cookie": cookie]).status == 200)
        }
    }

    /// Admin answers are never cached or sniffed, and a session ends when the admin password
    /// does: a gateway started with another password (a rotation) refuses the old cookie,
    /// though both share the Redis the session is in.
    @Test func adminAnswersAreNotCachedAndSessionsEndWithThePassword() async throws {
        try await Stack.with { stack in
            let login = try await stack.request("POST", "/admin/login", body: ["password": Stack.adminPassword])
            #expect(login.status == 204)
            let cookie = ["Cookie": String(try #require(login.header("Set-Cookie")).split(separator: ";")[0])]
            for reply in [
                try await stack.request("GET", "/admin/api/users", headers: cookie),
                try await stack.request("GET", "/admin/api/users"),
            ] {
                #expect(reply.header("Cache-Control") == "no-store", "\(reply.status)")
                #expect(reply.header("X-Content-Type-Options") == "nosniff", "\(reply.status)")
            }
            try await stack.withAnotherGateway(environment: ["ADMIN_PASSWORD": "a new admin password"]) { rotated, _ in
                let refused = try await stack.request("GET", "/admin/api/users", headers: cookie, gateway: rotated)
                #expect(refused.status == 401)
                let again = try await stack.request("POST", "/admin/login", body: ["password": "a new admin password"], gateway: rotated)
                #expect(again.status == 204)
            }
            // The gateway still configured with the old password keeps the session.
            #expect(try await stack.request("GET", "/admin/api/users", headers: cookie).status == 200)
        }
    }
}
