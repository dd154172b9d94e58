import Foundation
import Testing

/// The admin surface: cookie login, user search, deactivation (at once), activation,
/// revoking sessions, deletion.
@Suite("End to end: admin", .timeLimit(.minutes(5)))
struct AdminTests {
    @Test func adminManagesUsers() async throws {
        try await Stack.with { stack in
            let noCookie = try await stack.request("GET", "/admin/api/users")
            #expect(noCookie.status == 401)
            #expect(noCookie.errorCode == "unauthorized")
            let wrong = try await stack.request("POST", "/admin/login", body: ["password": "guess"])
            #expect(wrong.status == 401)

            let login = try await stack.request("POST", "/admin/login", body: ["password": Stack.adminPassword])
            #expect(login.status == 204)
            let setCookie = try #require(login.header("Set-Cookie"))
            #expect(setCookie.contains("HttpOnly"))
            #expect(setCookie.contains("SameSite=Strict"))
            #expect(!setCookie.contains("Secure"))  // development
            let cookie = String(setCookie.split(separator: ";")[0])
            let admin = ["Cookie": cookie]

            let email = "admin-e2e-\(UUID().uuidString.lowercased())@example.com"
            let subject = "apple-\(UUID().uuidString)"
            let user = try await stack.signInApple(subject: subject, email: email)

            let search = try await stack.request("GET", "/admin/api/users?query=\(email)&limit=5", headers: admin)
            #expect(search.status == 200)
            let users = try #require(search.json["users"] as? [[String: Any]])
            #expect(users.map { $0["id"] as? String } == [user.userID])
            #expect(users.first?["is_active"] as? Bool == true)

            // Deactivation takes effect at once: the live access token gets user_inactive, sign-in too.
            let deactivate = try await stack.request("POST", "/admin/api/users/\(user.userID)/deactivate", headers: admin)
            #expect(deactivate.status == 200)
            #expect(deactivate.json["is_active"] as? Bool == false)
            let blocked = try await stack.request("GET", "/api/v1/favorites", token: user.accessToken)
            #expect(blocked.status == 403)
            #expect(blocked.errorCode == "user_inactive")
            let signIn = try await stack.request(
                "POST", "/api/v1/auth/apple", body: ["identity_token": try await stack.appleToken(subject: subject)])
            #expect(signIn.status == 403)
            #expect(signIn.errorCode == "user_inactive")
            #expect(try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": user.refreshToken]).status == 401)

            // Activated again, the user signs in at once (often within the same second as the
            // deactivation): the fresh token works, whatever the clock's second says, since the
            // not-before and the token's issue time count milliseconds. Three rounds, none
            // aligned to the clock: the verdict may not depend on where a second falls.
            var lastSession: Session?
            for _ in 0..<3 {
                #expect(try await stack.request("POST", "/admin/api/users/\(user.userID)/deactivate", headers: admin).status == 200)
                let activate = try await stack.request("POST", "/admin/api/users/\(user.userID)/activate", headers: admin)
                #expect(activate.json["is_active"] as? Bool == true)
                let session = try await stack.signInApple(subject: subject)
                #expect(try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken).status == 200)
                lastSession = session
            }
            let back = try #require(lastSession)

            let revoke = try await stack.request("POST", "/admin/api/users/\(user.userID)/revoke-sessions", headers: admin)
            #expect(revoke.status == 200)
            #expect(revoke.json["revoked_sessions"] as? Int == 1)
            let revoked = try await stack.request("GET", "/api/v1/auth/me", token: back.accessToken)
            #expect(revoked.status == 401)
            #expect(revoked.errorCode == "session_revoked")
            // Every admin action answers 404 for a user that does not exist.
            let nobody = UUID().uuidString.lowercased()
            for (method, action) in [("POST", "/deactivate"), ("POST", "/activate"), ("POST", "/revoke-sessions")] {
                let reply = try await stack.request(method, "/admin/api/users/\(nobody)\(action)", headers: admin)
                #expect(reply.status == 404, "\(action)")
                #expect(reply.errorCode == "not_found")
            }

            #expect(try await stack.request("PUT", "/api/v1/favorites/kept", token: back.accessToken).status == 401)
            let fresh = try await stack.signInApple(subject: subject)
            #expect(try await stack.request("PUT", "/api/v1/favorites/kept", token: fresh.accessToken).status == 200)
            let before = try await StoredRows.of(user: user.userID)
            #expect(before == StoredRows(users: 1, identities: 1, liveSessions: 1, itemStates: 1, userVersions: 1), "\(before)")
            let traces = try await DeletionOracle.Traces.of(user: user.userID)
            #expect(try await stack.request("DELETE", "/admin/api/users/\(user.userID)", headers: admin).status == 204)
            try await DeletionOracle.expectNothingLeft(of: traces, redisURL: stack.redisURL)
            let gone = try await stack.request("GET", "/admin/api/users?query=\(email)", headers: admin)
            #expect((gone.json["users"] as? [Any])?.isEmpty == true)
            #expect(try await stack.request("POST", "/admin/api/users/not-a-uuid/activate", headers: admin).status == 404)

            #expect(try await stack.request("POST", "/admin/logout", headers: admin).status == 204)
            #expect(try await stack.request("GET", "/admin/api/users", headers: admin).status == 401)
        }
    }
}
