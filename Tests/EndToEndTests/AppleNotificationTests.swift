import Foundation
import Testing

/// Apple's server-to-server notifications through the real gateway, identity, tokens and
/// content-state, minted by the mock provider: each event type, repeats, and refusals.
@Suite("End to end: Apple notifications", .timeLimit(.minutes(5)))
struct AppleNotificationTests {
    func post(_ stack: Stack, _ body: [String: Any]) async throws -> Stack.Reply {
        try await stack.request("POST", "/api/v1/auth/apple/notifications", body: body)
    }

    func adminCookie(_ stack: Stack) async throws -> [String: String] {
        let login = try await stack.request("POST", "/admin/login", body: ["password": Stack.adminPassword])
        return ["Cookie": String(try #require(login.header("Set-Cookie")).split(separator: ";")[0])]
    }

    /// `identity_apple_notifications_total` for one type and outcome (0 when never counted).
    func count(_ stack: Stack, type: String, outcome: String) async throws -> Int {
        let line = try await stack.metrics("identity").split(separator: "\n").first {
            $0.hasPrefix("identity_apple_notifications_total{") && $0.contains(#"type="\#(type)""#)
                && $0.contains(#"outcome="\#(outcome)""#)
        }
        return line.flatMap { $0.split(separator: " ").last }.flatMap { Int(Double($0) ?? 0) } ?? 0
    }

    @Test func consentRevokedEndsEverySessionAndKeepsTheIdentity() async throws {
        try await Stack.with { stack in
            let subject = "apple-\(UUID().uuidString)"
            let phone = try await stack.signInApple(subject: subject)
            let tablet = try await stack.signInApple(subject: subject)
            #expect(try await stack.request("PUT", "/api/v1/favorites/kept", token: phone.accessToken).status == 200)

            let notification = try await stack.appleNotification(subject: subject, type: "consent-revoked")
            let reply = try await self.post(stack, notification)
            #expect(reply.status == 200, "\(String(buffer: reply.body))")
            for session in [phone, tablet] {
                let refused = try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken)
                #expect(refused.status == 401)
                #expect(refused.errorCode == "session_revoked")
                let refresh = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": session.refreshToken])
                #expect(refresh.errorCode == "invalid_refresh_token")
            }
            // The identity stays: a later Apple sign-in is a fresh consent into the same user, state intact.
            let back = try await stack.signInApple(subject: subject)
            #expect(back.userID == phone.userID)
            #expect(back.isNewUser == false)
            let favorites = try await stack.request("GET", "/api/v1/favorites", token: back.accessToken)
            #expect((favorites.json["items"] as? [[String: Any]])?.first?["item_id"] as? String == "kept")
            // The same notification again (Apple retries): 200, and the new session lives.
            #expect(try await self.post(stack, notification).status == 200)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: back.accessToken).status == 200)
            #expect(try await self.count(stack, type: "consent-revoked", outcome: "applied") == 1)
            #expect(try await self.count(stack, type: "consent-revoked", outcome: "repeated") == 1)
        }
    }

    @Test func accountDeleteOfTheOnlyIdentityDeletesTheAccount() async throws {
        try await Stack.with { stack in
            let subject = "apple-\(UUID().uuidString)"
            let session = try await stack.signInApple(subject: subject)
            #expect(try await stack.request("PUT", "/api/v1/read/article-1", token: session.accessToken).status == 200)
            let traces = try await DeletionOracle.Traces.of(user: session.userID)
            #expect(traces.subjects == [subject])

            let reply = try await self.post(stack, try await stack.appleNotification(subject: subject, type: "account-delete"))
            #expect(reply.status == 200, "\(String(buffer: reply.body))")
            // The old user's rows, read behind the services' backs: nothing left but what the
            // contract keeps (the notification's id among it).
            let kept = try await DeletionOracle.expectNothingLeft(of: traces, redisURL: stack.redisURL)
            #expect(kept["identity.apple_notifications.subject"] == 1, "\(kept)")
            let refused = try await stack.request("GET", "/api/v1/read", token: session.accessToken)
            #expect(refused.status == 401)
            #expect(refused.errorCode == "session_revoked")
            #expect(try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": session.refreshToken]).status == 401)
            let admin = try await self.adminCookie(stack)
            #expect(try await stack.request("GET", "/admin/api/users/\(session.userID)", headers: admin).status == 404)
            // A later sign-in with that Apple account is a new user, with no state.
            let again = try await stack.signInApple(subject: subject)
            #expect(again.isNewUser == true)
            #expect(again.userID != session.userID)
            let read = try await stack.request("GET", "/api/v1/read", token: again.accessToken)
            #expect((read.json["items"] as? [Any])?.isEmpty == true)
            #expect(try await self.count(stack, type: "account-delete", outcome: "applied") == 1)
        }
    }

    @Test func accountDeletedOfOneOfTwoIdentitiesRevokesSessionsAndKeepsTheOther() async throws {
        try await Stack.with { stack in
            let subject = "apple-\(UUID().uuidString)"
            let session = try await stack.signInApple(subject: subject)
            let googleSubject = "google-\(UUID().uuidString)"
            let link = try await stack.request(
                "POST", "/api/v1/auth/identities/google", body: ["id_token": try await stack.googleToken(subject: googleSubject)],
                token: session.accessToken)
            #expect(link.status == 200)

            let reply = try await self.post(stack, try await stack.appleNotification(subject: subject, type: "account-deleted"))
            #expect(reply.status == 200, "\(String(buffer: reply.body))")
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken).errorCode == "session_revoked")
            let google = try await stack.request(
                "POST", "/api/v1/auth/google", body: ["id_token": try await stack.googleToken(subject: googleSubject)])
            #expect(google.status == 200)
            let next = try Session(google.json)
            #expect(next.userID == session.userID)
            #expect((google.json["user"] as? [String: Any])?["providers"] as? [String] == ["google"])
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: next.accessToken).status == 200)
        }
    }

    @Test func emailForwardingIsShownToTheAdmin() async throws {
        try await Stack.with { stack in
            let subject = "apple-\(UUID().uuidString)"
            let relay = "r\(UUID().uuidString.prefix(8).lowercased())@privaterelay.appleid.com"
            let session = try await stack.signInApple(subject: subject, email: relay)
            let admin = try await self.adminCookie(stack)
            func forwarding() async throws -> Bool? {
                let view = try await stack.request("GET", "/admin/api/users/\(session.userID)", headers: admin)
                #expect(view.status == 200)
                #expect(view.json["is_active"] as? Bool == true)
                return (view.json["identities"] as? [[String: Any]])?.first?["email_forwarding"] as? Bool
            }
            #expect(try await forwarding() == true)
            #expect(try await self.post(stack, try await stack.appleNotification(subject: subject, type: "email-disabled")).status == 200)
            #expect(try await forwarding() == false)
            // Sessions are untouched.
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken).status == 200)
            #expect(try await self.post(stack, try await stack.appleNotification(subject: subject, type: "email-enabled")).status == 200)
            #expect(try await forwarding() == true)
            #expect(try await self.count(stack, type: "email-disabled", outcome: "applied") == 1)
            #expect(try await self.count(stack, type: "email-enabled", outcome: "applied") == 1)
        }
    }

    @Test func unknownSubjectsTypesAndBadPayloads() async throws {
        try await Stack.with { stack in
            let session = try await stack.signInApple()
            let stranger = try await self.post(stack, try await stack.appleNotification(subject: "apple-nobody-\(UUID())", type: "consent-revoked"))
            #expect(stranger.status == 200)
            let subject = "apple-\(UUID().uuidString)"
            let other = try await stack.signInApple(subject: subject)
            #expect(try await self.post(stack, try await stack.appleNotification(subject: subject, type: "account-frozen")).status == 200)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: other.accessToken).status == 200)

            // A JWS that does not verify: 400 with the usual error body, nothing changed.
            for defect in ["wrong_key", "wrong_audience", "wrong_issuer", "expired", "garbage", "tampered_payload"] {
                let body = try await stack.appleNotification(subject: subject, type: "account-delete", ["defect": defect])
                let reply = try await self.post(stack, body)
                #expect(reply.status == 400, "\(defect)")
                #expect(reply.errorCode == "bad_request")
                #expect(((reply.json["error"] as? [String: Any])?["request_id"] as? String)?.isEmpty == false)
            }
            for body: [String: Any] in [[:], ["payload": ""], ["payload": 5]] {
                #expect(try await self.post(stack, body).errorCode == "bad_request")
            }
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: other.accessToken).status == 200)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken).status == 200)
            #expect(try await self.count(stack, type: "consent-revoked", outcome: "unknown_subject") == 1)
            #expect(try await self.count(stack, type: "unknown", outcome: "unknown_type") == 1)
            #expect(try await self.count(stack, type: "unknown", outcome: "invalid") == 6)
        }
    }

    @Test func notificationsAreRateLimitedPerIPAsSignInIs() async throws {
        try await Stack.with(gatewayEnvironment: ["RATE_LIMIT_SIGNIN_PER_MIN": "2"]) { stack in
            // This stack claims its own client address, so only these calls count. The limit
            // counts per minute window: the calls may straddle two, each letting two by.
            var statuses: [Int] = []
            let firstWindow = Int(Date().timeIntervalSince1970) / 60
            for _ in 0..<6 {
                statuses.append(try await self.post(stack, ["payload": "garbage"]).status)
            }
            let windows = Int(Date().timeIntervalSince1970) / 60 - firstWindow + 1
            #expect(statuses.filter { $0 == 400 }.count <= 2 * windows, "\(statuses) in \(windows) window(s)")
            #expect(statuses.filter { $0 == 429 }.count >= 6 - 2 * windows, "\(statuses) in \(windows) window(s)")
            #expect(statuses.allSatisfy { $0 == 400 || $0 == 429 }, "\(statuses)")
        }
    }
}
