import Foundation
import TestSupport
import TextCoding
import Testing

/// The app's everyday path through the real stack: Apple sign-in, the current user,
/// favorites and state, refresh with its grace window and reuse detection. The grace window is
/// a minute where a retry must fall inside it and zero where reuse must be past it, so no
/// timing of the machine decides which side of it a call lands on.
@Suite("End to end: sign-in, state, refresh", .serialized, .timeLimit(.minutes(5)))
struct SignInFlowTests {
    @Test func appleSignInStateRefreshAndReuse() async throws {
        try await Stack.with(tokensEnvironment: ["REFRESH_REUSE_GRACE": "60"]) { stack in
            let subject = "apple-\(UUID().uuidString)"
            let email = "e2e-\(UUID().uuidString.lowercased())@example.com"
            let token = try await stack.appleToken(subject: subject, email: email)
            let signIn = try await stack.request(
                "POST", "/api/v1/auth/apple",
                body: ["identity_token": token, "full_name": ["given_name": "Ada", "family_name": "Lovelace"], "device_name": "iPhone"])
            #expect(signIn.status == 200)
            let json = signIn.json
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["is_new_user"] as? Bool == true)
            #expect((json["expires_in"] as? Int ?? 0) > 0)
            let user = try #require(json["user"] as? [String: Any])
            #expect(user["email"] as? String == email)
            #expect(user["display_name"] as? String == "Ada Lovelace")
            #expect(user["providers"] as? [String] == ["apple"])
            #expect(user["is_active"] == nil)
            for key in ["id", "email_verified", "is_admin", "created_at", "updated_at"] { #expect(user[key] != nil, "user.\(key)") }
            let session = try Session(json)

            // A second sign-in of the same identity: the same user, not new, name kept.
            let again = try await stack.signInApple(subject: subject)
            #expect(again.userID == session.userID)
            #expect(again.isNewUser == false)

            let me = try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken)
            #expect(me.status == 200)
            #expect(me.json["id"] as? String == session.userID)
            #expect(me.json["display_name"] as? String == "Ada Lovelace")

            // Favorites: put (with a percent-encoded id), list, toggle, state query, changes, delete.
            let itemID = "article/42 ü"
            let path = "/api/v1/favorites/" + itemID.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let put = try await stack.request("PUT", path, body: ["nickname": "later", "position": 3], token: session.accessToken)
            #expect(put.status == 200)
            #expect(put.json["item_id"] as? String == itemID)
            #expect(put.json["nickname"] as? String == "later")
            #expect(put.json["position"] as? Int == 3)
            #expect(put.json["favorited_at"] is String)
            // A put without a body keeps the nickname.
            let keep = try await stack.request("PUT", path, token: session.accessToken)
            #expect(keep.json["nickname"] as? String == "later")

            let list = try await stack.request("GET", "/api/v1/favorites?limit=10&order=position", token: session.accessToken)
            #expect(list.status == 200)
            let items = try #require(list.json["items"] as? [[String: Any]])
            #expect(items.map { $0["item_id"] as? String } == [itemID])
            #expect(list.json["next_cursor"] is NSNull)

            let toggle = try await stack.request("POST", "/api/v1/favorites/b/toggle", token: session.accessToken)
            #expect(toggle.status == 200)
            #expect(toggle.json["favorited"] as? Bool == true)
            #expect(try await stack.request("PUT", "/api/v1/read/b", token: session.accessToken).json["read_at"] is String)
            #expect(try await stack.request("PUT", "/api/v1/unlikes/c", token: session.accessToken).json["unliked_at"] is String)
            let batch = try await stack.request(
                "POST", "/api/v1/read/batch", body: ["item_ids": ["x", "y"], "read": true], token: session.accessToken)
            #expect(batch.json["updated"] as? Int == 2)

            let query = try await stack.request(
                "POST", "/api/v1/state/query", body: ["item_ids": ["b", "c", "nothing"]], token: session.accessToken)
            #expect(query.status == 200)
            let states = try #require(query.json["items"] as? [String: [String: Bool]])
            #expect(states["b"] == ["favorited": true, "read": true, "unliked": false])
            #expect(states["c"] == ["favorited": false, "read": false, "unliked": true])
            #expect(states["nothing"] == ["favorited": false, "read": false, "unliked": false])

            #expect(try await stack.request("DELETE", path, token: session.accessToken).status == 204)
            #expect(try await stack.request("DELETE", path, token: session.accessToken).status == 204)  // also when absent
            #expect(try await stack.request("DELETE", "/api/v1/read/b", token: session.accessToken).status == 204)
            let reads = try await stack.request("GET", "/api/v1/read", token: session.accessToken)
            #expect(Set((reads.json["items"] as? [[String: Any]] ?? []).compactMap { $0["item_id"] as? String }) == ["x", "y"])
            let unlikes = try await stack.request("GET", "/api/v1/unlikes", token: session.accessToken)
            #expect((unlikes.json["items"] as? [[String: Any]])?.first?["item_id"] as? String == "c")

            let changes = try await stack.request("GET", "/api/v1/state/changes?limit=100", token: session.accessToken)
            #expect(changes.status == 200)
            let changed = try #require(changes.json["changes"] as? [[String: Any]])
            let removed = try #require(changed.first { $0["item_id"] as? String == itemID })
            #expect(removed["favorited"] as? Bool == false)
            #expect(changes.json["has_more"] as? Bool == false)
            let cursor = try #require(changes.json["next_cursor"] as? String)
            let none = try await stack.request(
                "GET", "/api/v1/state/changes?since=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                token: session.accessToken)
            #expect((none.json["changes"] as? [Any])?.isEmpty == true)

            // Refresh: a new pair; the same old token again within the grace window gets the same pair.
            let refreshed = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": session.refreshToken])
            #expect(refreshed.status == 200)
            let next = try Session(refreshed.json)
            #expect(next.refreshToken != session.refreshToken)
            #expect(next.userID == session.userID)
            #expect(refreshed.json["is_new_user"] == nil)
            let retry = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": session.refreshToken])
            #expect(try Session(retry.json).refreshToken == next.refreshToken)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: next.accessToken).status == 200)

        }
    }

    @Test func aRotatedTokenPresentedAfterTheGraceWindowRevokesTheSession() async throws {
        try await Stack.with(tokensEnvironment: ["REFRESH_REUSE_GRACE": "0"]) { stack in
            let session = try await stack.signInApple()
            let refreshed = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": session.refreshToken])
            #expect(refreshed.status == 200)
            let next = try Session(refreshed.json)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: next.accessToken).status == 200)

            let reuse = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": session.refreshToken])
            #expect(reuse.status == 401)
            #expect(reuse.errorCode == "refresh_token_reused")
            #expect(reuse.header("WWW-Authenticate") == "Bearer")
            let revoked = try await stack.request("GET", "/api/v1/auth/me", token: next.accessToken)
            #expect(revoked.status == 401)
            #expect(revoked.errorCode == "session_revoked")
            let dead = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": next.refreshToken])
            #expect(dead.errorCode == "invalid_refresh_token")
        }
    }

    @Test func jwksRequestIDAndUnknownRoutes() async throws {
        try await Stack.with { stack in
            let jwks = try await stack.request("GET", "/.well-known/jwks.json")
            #expect(jwks.status == 200)
            let keys = try #require(jwks.json["keys"] as? [[String: Any]])
            #expect(keys.count == 1)
            #expect(keys.first?["kid"] is String)

            let echoed = try await stack.request("GET", "/healthz", headers: ["X-Request-ID": "trace-abc-123"])
            #expect(echoed.header("X-Request-ID") == "trace-abc-123")
            let generated = try await stack.request("GET", "/healthz")
            #expect((generated.header("X-Request-ID") ?? "").count >= 16)

            let missing = try await stack.request("GET", "/api/v1/nothing-here", headers: ["X-Request-ID": "trace-404"])
            #expect(missing.status == 404)
            #expect(missing.errorCode == "not_found")
            #expect((missing.json["error"] as? [String: Any])?["request_id"] as? String == "trace-404")

            // Readiness and metrics are on the operations port only, not the public one.
            let ready = try await stack.ops("gateway", "/readyz")
            #expect(ready.status == 200)
            #expect(
                ready.json["checks"] as? [String: String]
                    == ["redis": "ok", "identity": "ok", "tokens": "ok", "content-state": "ok", "content": "ok"])
            #expect(try await stack.request("GET", "/readyz").status == 404)
            #expect(try await stack.request("GET", "/metrics").status == 404)
            #expect(try await stack.ops("gateway", "/healthz").status == 200)

            // Prometheus text with per-route counts of the public port and the RPC client's figures.
            let metrics = try await stack.ops("gateway", "/metrics")
            #expect(metrics.status == 200)
            let text = String(buffer: metrics.body)
            #expect(text.contains(#"http_requests_total{method="GET",route="/healthz",status="200"}"#), "\(text.prefix(3000))")
            #expect(text.contains("http_request_duration_seconds_bucket"))
            let clientLines = text.split(separator: "\n").filter { $0.hasPrefix("rpc_client_calls_total{") }
            #expect(clientLines.contains { $0.contains(#"service="tokens""#) && $0.contains(#"method="health""#) })

            // The request id reaches the backends' logs (the read list is content-state's to answer).
            let session = try await stack.signInApple()
            _ = try await stack.request("GET", "/api/v1/read", token: session.accessToken, headers: ["X-Request-ID": "trace-into-backend"])
            let contentState = try #require(stack.processes["content-state"])
            try await waitUntil("content-state logged the request id") {
                contentState.stdout.contains("trace-into-backend") || contentState.stderr.contains("trace-into-backend")
            }
        }
    }
}

/// A signing key added to the folder three `tokens` replicas share, in the middle of refresh
/// and read traffic: every replica publishes it at once, signs with it only after
/// `SIGNING_KEY_ACTIVATION_DELAY`, the gateway learns it from the first token that names it, and
/// no request fails on the way.
@Suite("End to end: key rotation", .timeLimit(.minutes(5)))
struct KeyRotationTests {
    struct Observed: Sendable {
        var tokens: [(kid: String, receivedAt: Date)] = []
        var failures: [String] = []
    }

    @Test func aKeyAddedUnderLoadSignsAfterTheActivationDelayAndNoRequestFails() async throws {
        let delay = 3.0
        let environment = ["SIGNING_KEYS_RELOAD_INTERVAL": "1", "SIGNING_KEY_ACTIVATION_DELAY": "\(Int(delay))"]
        try await Stack.with(tokensReplicas: 3, gatewayEnvironment: ["RATE_LIMIT_REFRESH_PER_MIN": "0"], tokensEnvironment: environment) { stack in
            let sessions = try await withThrowingTaskGroup(of: Session.self) { group in
                for _ in 0..<8 { group.addTask { try await stack.signInApple() } }
                return try await group.reduce(into: [Session]()) { $0.append($1) }
            }
            let oldKid = try accessTokenKid(sessions[0].accessToken)
            let oldKeys = Set(try FileManager.default.contentsOfDirectory(atPath: stack.keysFolder.path))
            let keyAdded = ContinuousClock.now + .seconds(1.5)
            // Long enough for the new key to sign a while at every replica; bounded either way.
            let deadline = keyAdded + .seconds(delay + 6)
            let observed = try await withThrowingTaskGroup(of: Observed.self) { group in
                for session in sessions {
                    group.addTask {
                        var current = session
                        var seen = Observed()
                        while ContinuousClock.now < deadline {
                            let refresh = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": current.refreshToken])
                            guard refresh.status == 200 else {
                                seen.failures.append("refresh \(refresh.status) \(refresh.errorCode ?? "")")
                                continue
                            }
                            current = try Session(refresh.json)
                            seen.tokens.append((try accessTokenKid(current.accessToken), Date()))
                            let me = try await stack.request("GET", "/api/v1/auth/me", token: current.accessToken)
                            if me.status != 200 { seen.failures.append("me \(me.status) \(me.errorCode ?? "")") }
                        }
                        return seen
                    }
                }
                group.addTask {
                    try await Task.sleep(until: keyAdded)
                    try await Stack.keygen(into: stack.keysFolder)
                    return Observed()
                }
                return try await group.reduce(into: Observed()) {
                    $0.tokens += $1.tokens
                    $0.failures += $1.failures
                }
            }
            #expect(observed.failures.isEmpty, "\(observed.failures.count) failed: \(observed.failures.prefix(10))")
            let added = try #require(Set(try FileManager.default.contentsOfDirectory(atPath: stack.keysFolder.path)).subtracting(oldKeys).first { $0.hasSuffix(".pem") })
            let createdAt = try #require(
                try FileManager.default.attributesOfItem(atPath: stack.keysFolder.appendingPathComponent(added).path)[.modificationDate] as? Date)
            let signedByNewKey = observed.tokens.filter { $0.kid != oldKid }
            #expect(Set(signedByNewKey.map(\.kid)).count == 1)
            #expect(signedByNewKey.count > 20, "the new key signs once its delay has passed")
            // The replicas date the key by the second its name starts with, up to a second
            // before the file's time.
            let early = signedByNewKey.filter { $0.receivedAt < createdAt.addingTimeInterval(delay - 1) }
            #expect(early.isEmpty, "\(early.count) tokens of the new key came before its activation delay had passed")
            #expect(observed.tokens.contains { $0.kid == oldKid && $0.receivedAt > createdAt }, "the old key signs while the new one waits")
            // Tokens of the old key keep working, and both keys are published.
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: sessions[0].accessToken).status == 200)
            let jwks = try await stack.request("GET", "/.well-known/jwks.json")
            #expect((jwks.json["keys"] as? [Any])?.count == 2)
        }
    }
}
