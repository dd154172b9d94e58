import Foundation
import Testing

/// Every error code of the public catalogue, each caused for real, with its status and body.
@Suite("End to end: error catalogue", .timeLimit(.minutes(5)))
struct ErrorCatalogueTests {
    func expectError(_ reply: Stack.Reply, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == status, "\(String(buffer: reply.body))", sourceLocation: sourceLocation)
        #expect(reply.errorCode == code, sourceLocation: sourceLocation)
        let error = reply.json["error"] as? [String: Any]
        #expect((error?["message"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(error?["request_id"] is String, sourceLocation: sourceLocation)
        #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        // The same members in the same order on every response.
        #expect(String(buffer: reply.body).hasPrefix(#"{"error":{"code":"\#(code)","message":""#), sourceLocation: sourceLocation)
    }

    @Test func requestAndTokenErrors() async throws {
        try await Stack.with(gatewayEnvironment: ["MAX_BODY_BYTES": "2048"]) { stack in
            let session = try await stack.signInApple()
            let token = session.accessToken

            // 400 bad_request: malformed JSON, a wrong field, a bad limit, cursor or item id, too deep.
            expectError(try await stack.request("POST", "/api/v1/auth/apple", body: "{not json"), 400, "bad_request")
            expectError(try await stack.request("POST", "/api/v1/auth/apple", body: ["identity_token": 5]), 400, "bad_request")
            expectError(try await stack.request("POST", "/api/v1/auth/refresh", body: "[1,2]"), 400, "bad_request")
            expectError(try await stack.request("GET", "/api/v1/favorites?limit=0", token: token), 400, "bad_request")
            expectError(try await stack.request("GET", "/api/v1/favorites?limit=abc", token: token), 400, "bad_request")
            expectError(try await stack.request("GET", "/api/v1/favorites?cursor=garbage!", token: token), 400, "bad_request")
            expectError(try await stack.request("PUT", "/api/v1/favorites/%01bell", token: token), 400, "bad_request")
            expectError(try await stack.request("PUT", "/api/v1/favorites/a", body: ["nickname": 12], token: token), 400, "bad_request")
            expectError(
                try await stack.request("POST", "/api/v1/state/query", body: ["item_ids": "a"], token: token), 400, "bad_request")
            let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
            expectError(try await stack.request("POST", "/api/v1/state/query", body: "{\"item_ids\":\(deep)}", token: token), 400, "bad_request")

            // 401 unauthorized, with WWW-Authenticate: missing, malformed, tampered, wrong audience or issuer.
            let missing = try await stack.request("GET", "/api/v1/auth/me")
            expectError(missing, 401, "unauthorized")
            #expect(missing.header("WWW-Authenticate") == "Bearer")
            expectError(try await stack.request("GET", "/api/v1/auth/me", token: "not.a.jwt"), 401, "unauthorized")
            var parts = token.split(separator: ".").map(String.init)
            parts[1] = parts[1].reversed().map(String.init).joined()
            expectError(try await stack.request("GET", "/api/v1/auth/me", token: parts.joined(separator: ".")), 401, "unauthorized")
            expectError(try await stack.request("GET", "/api/v1/auth/me", headers: ["Authorization": "Basic abc"]), 401, "unauthorized")
            // Signed with the right key, but for another audience or from another issuer. (The
            // same forging, claims unchanged, is accepted: only the claims make the difference.)
            let faithful = try await stack.forgeAccessToken(like: token) { _ in }
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: faithful).status == 200)
            let foreignAudience = try await stack.forgeAccessToken(like: token) { $0.aud = "someone-else" }
            expectError(try await stack.request("GET", "/api/v1/auth/me", token: foreignAudience), 401, "unauthorized")
            let foreignIssuer = try await stack.forgeAccessToken(like: token) { $0.iss = "https://issuer.example.org" }
            expectError(try await stack.request("GET", "/api/v1/auth/me", token: foreignIssuer), 401, "unauthorized")

            // 401 invalid_identity_token: a token of the wrong audience, an expired one, garbage.
            let wrongAudience = try await stack.mint("apple", ["sub": "x", "aud": "com.other.app"])
            expectError(try await stack.request("POST", "/api/v1/auth/apple", body: ["identity_token": wrongAudience]), 401, "invalid_identity_token")
            let expired = try await stack.mint("apple", ["sub": "x", "aud": Stack.appleAudience, "defect": "expired"])
            expectError(try await stack.request("POST", "/api/v1/auth/apple", body: ["identity_token": expired]), 401, "invalid_identity_token")
            expectError(try await stack.request("POST", "/api/v1/auth/google", body: ["id_token": "garbage"]), 401, "invalid_identity_token")
            // 400 when the token is missing altogether.
            expectError(try await stack.request("POST", "/api/v1/auth/apple", body: [String: Any]()), 400, "bad_request")

            // 401 invalid_refresh_token.
            expectError(try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": "nope"]), 401, "invalid_refresh_token")

            // 404 not_found: unknown route, unknown session.
            expectError(try await stack.request("GET", "/nothing"), 404, "not_found")
            expectError(try await stack.request("DELETE", "/api/v1/auth/sessions/\(UUID())", token: token), 404, "not_found")

            // 413 payload_too_large.
            let big = ["item_ids": (0..<400).map { "item-\($0)" }]
            expectError(try await stack.request("POST", "/api/v1/state/query", body: big, token: token), 413, "payload_too_large")

            // 503 service_unavailable: content-state is down; the gateway says so (and stays up).
            // Its own reads and writes of the content schema go on; the read and unlikes lists
            // need content-state.
            stack.processes["content-state"]?.terminate()
            _ = await stack.processes["content-state"]?.waitForExit(timeout: .seconds(60))
            expectError(try await stack.request("GET", "/api/v1/read", token: token), 503, "service_unavailable")
            expectError(try await stack.request("GET", "/api/v1/unlikes", token: token), 503, "service_unavailable")
            #expect(try await stack.request("PUT", "/api/v1/favorites/after-the-fall", token: token).status == 200)
            #expect(try await stack.request("GET", "/api/v1/favorites", token: token).status == 200)
            let ready = try await stack.ops("gateway", "/readyz")
            #expect(ready.status == 503)
            #expect((ready.json["checks"] as? [String: String])?["content-state"] == "unavailable")
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: token).status == 200)
        }
    }

    @Test func rateLimitsAndUnconfiguredAdmin() async throws {
        try await Stack.with(
            gatewayEnvironment: ["RATE_LIMIT_SIGNIN_PER_MIN": "2", "RATE_LIMIT_REFRESH_PER_MIN": "0", "ADMIN_PASSWORD": ""]
        ) { stack in
            // This stack claims its own client address, so only these calls count. Limits count
            // per minute: a run that crosses into the next minute is run again (in that minute).
            let garbage = ["identity_token": "garbage"]
            var statuses: [Int] = []
            var limited: Stack.Reply?
            for _ in 0..<2 {
                let minute = Int(Date().timeIntervalSince1970) / 60
                statuses = []
                for _ in 0..<6 {
                    let reply = try await stack.request("POST", "/api/v1/auth/apple", body: garbage)
                    statuses.append(reply.status)
                    if reply.status == 429 { limited = reply }
                }
                if Int(Date().timeIntervalSince1970) / 60 == minute { break }
            }
            let reply = try #require(limited)
            expectError(reply, 429, "rate_limited")
            let retryAfter = try #require(reply.header("Retry-After").flatMap(Int.init))
            #expect((1...60).contains(retryAfter))
            #expect(statuses.filter { $0 == 429 }.count >= 4)
            // 0 turns a limit off.
            for _ in 0..<5 {
                #expect(try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": "x"]).status == 401)
            }
            // 403 forbidden: no admin password configured.
            expectError(try await stack.request("POST", "/admin/login", body: ["password": "anything"]), 403, "forbidden")
        }
    }
}
