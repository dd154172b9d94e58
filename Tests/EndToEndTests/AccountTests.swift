import Foundation
import Testing

/// Linking, logout scopes, sessions and account deletion through the real stack.
@Suite("End to end: accounts", .timeLimit(.minutes(5)))
struct AccountTests {
    @Test func googleLinkSignInAndUnlink() async throws {
        try await Stack.with { stack in
            let apple = try await stack.signInApple()
            let googleSubject = "google-\(UUID().uuidString)"
            let idToken = try await stack.googleToken(subject: googleSubject)
            let link = try await stack.request(
                "POST", "/api/v1/auth/identities/google", body: ["id_token": idToken], token: apple.accessToken)
            #expect(link.status == 200)
            #expect(link.json["providers"] as? [String] == ["apple", "google"])
            #expect(link.json["identities"] == nil)

            // Google now signs into the same user.
            let google = try await stack.request(
                "POST", "/api/v1/auth/google", body: ["id_token": try await stack.googleToken(subject: googleSubject)])
            #expect(google.status == 200)
            #expect(try Session(google.json).userID == apple.userID)
            #expect(google.json["is_new_user"] as? Bool == false)

            // Another user cannot take that Google identity; this user cannot add a second Google account.
            let other = try await stack.signInApple()
            let taken = try await stack.request(
                "POST", "/api/v1/auth/identities/google", body: ["id_token": try await stack.googleToken(subject: googleSubject)],
                token: other.accessToken)
            #expect(taken.status == 409)
            #expect(taken.errorCode == "identity_already_linked")
            let second = try await stack.request(
                "POST", "/api/v1/auth/identities/google",
                body: ["id_token": try await stack.googleToken(subject: "google-\(UUID().uuidString)")], token: apple.accessToken)
            #expect(second.status == 409)
            #expect(second.errorCode == "conflict")
            let unknownProvider = try await stack.request("POST", "/api/v1/auth/identities/facebook", body: ["id_token": "x"], token: apple.accessToken)
            #expect(unknownProvider.status == 404)

            let unlink = try await stack.request("DELETE", "/api/v1/auth/identities/google", token: apple.accessToken)
            #expect(unlink.status == 200)
            #expect(unlink.json["providers"] as? [String] == ["apple"])
            let last = try await stack.request("DELETE", "/api/v1/auth/identities/apple", token: apple.accessToken)
            #expect(last.status == 409)
            #expect(last.errorCode == "last_identity")
        }
    }

    @Test func logoutScopesAndSessions() async throws {
        try await Stack.with { stack in
            let subject = "apple-\(UUID().uuidString)"
            let a = try await stack.signInApple(subject: subject, extra: ["device_name": "phone"])
            let b = try await stack.signInApple(subject: subject, extra: ["device_name": "tablet"])
            let c = try await stack.signInApple(subject: subject)

            let list = try await stack.request("GET", "/api/v1/auth/sessions", token: a.accessToken)
            #expect(list.status == 200)
            let sessions = try #require(list.json["sessions"] as? [[String: Any]])
            #expect(sessions.count == 3)
            #expect(sessions.filter { $0["current"] as? Bool == true }.count == 1)
            #expect(Set(sessions.compactMap { $0["device_name"] as? String }) == ["phone", "tablet"])
            for key in ["id", "created_at", "last_used_at", "expires_at"] { #expect(sessions.allSatisfy { $0[key] is String }, "\(key)") }

            // Delete one session by id (tablet's); someone else's or a made-up id is 404.
            let tablet = try #require(sessions.first { $0["device_name"] as? String == "tablet" }?["id"] as? String)
            #expect(try await stack.request("DELETE", "/api/v1/auth/sessions/\(tablet)", token: a.accessToken).status == 204)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: b.accessToken).status == 401)
            let stranger = try await stack.signInApple()
            let foreign = try await stack.request("DELETE", "/api/v1/auth/sessions/\(tablet)", token: stranger.accessToken)
            #expect(foreign.status == 404)
            #expect(try await stack.request("DELETE", "/api/v1/auth/sessions/\(UUID())", token: a.accessToken).status == 404)

            // others: every session but this one.
            #expect(try await stack.request("POST", "/api/v1/auth/logout", body: ["scope": "others"], token: a.accessToken).status == 204)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: c.accessToken).status == 401)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: a.accessToken).status == 200)
            // local (the default): this session.
            #expect(try await stack.request("POST", "/api/v1/auth/logout", token: a.accessToken).status == 204)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: a.accessToken).status == 401)
            let refresh = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": a.refreshToken])
            #expect(refresh.errorCode == "invalid_refresh_token")
            // global: every session, including this one.
            let d = try await stack.signInApple(subject: subject)
            let e = try await stack.signInApple(subject: subject)
            #expect(try await stack.request("POST", "/api/v1/auth/logout", body: ["scope": "global"], token: d.accessToken).status == 204)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: d.accessToken).status == 401)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: e.accessToken).status == 401)
            let bad = try await stack.request("POST", "/api/v1/auth/logout", body: ["scope": "everywhere"], token: stranger.accessToken)
            #expect(bad.status == 400)
            #expect(bad.errorCode == "bad_request")
        }
    }

    @Test func accountDeletionRemovesEverything() async throws {
        try await Stack.with { stack in
            let subject = "apple-\(UUID().uuidString)"
            let first = try await stack.signInApple(subject: subject)
            let second = try await stack.signInApple(subject: subject)
            #expect(try await stack.request("PUT", "/api/v1/favorites/kept", token: first.accessToken).status == 200)
            #expect(try await stack.request("PUT", "/api/v1/read/seen", token: first.accessToken).status == 200)
            let before = try await StoredRows.of(user: first.userID)
            #expect(before == StoredRows(users: 1, identities: 1, liveSessions: 2, itemStates: 2, userVersions: 1), "\(before)")

            let traces = try await DeletionOracle.Traces.of(user: first.userID)
            let delete = try await stack.request("DELETE", "/api/v1/auth/account", token: first.accessToken)
            #expect(delete.status == 204)
            // Nothing of the deleted user is left but what the contract keeps on purpose.
            let kept = try await DeletionOracle.expectNothingLeft(of: traces, redisURL: stack.redisURL)
            #expect(kept["tokens.sessions.user_id"] == 2, "\(kept)")
            // Every token of the user is dead.
            #expect(try await stack.request("GET", "/api/v1/favorites", token: second.accessToken).status == 401)
            #expect(try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": second.refreshToken]).status == 401)
            // A retry of the deletion (say, after a lost response) still completes.
            #expect(try await stack.request("DELETE", "/api/v1/auth/account", token: first.accessToken).status == 204)
            // But the deleted token can do nothing else.
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: first.accessToken).status == 401)

            // The same Apple identity now makes a new, empty user.
            let again = try await stack.signInApple(subject: subject)
            #expect(again.isNewUser == true)
            #expect(again.userID != first.userID)
            let favorites = try await stack.request("GET", "/api/v1/favorites", token: again.accessToken)
            #expect((favorites.json["items"] as? [Any])?.isEmpty == true)
        }
    }
}
