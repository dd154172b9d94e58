import Foundation
import NIOCore
import Testing

/// What the admin console reads beyond the user list: one user's open sessions and content
/// counts from all three backends; and the console and the API document as the gateway serves them.
@Suite("End to end: admin console and API document", .timeLimit(.minutes(5)))
struct AdminConsoleAPITests {
    @Test func userDetailShowsSessionsAndCounts() async throws {
        try await Stack.with { stack in
            let login = try await stack.request("POST", "/admin/login", body: ["password": Stack.adminPassword])
            let cookie = String(try #require(login.header("Set-Cookie")).split(separator: ";")[0])
            let admin = ["Cookie": cookie]
            let user = try await stack.signInApple(extra: ["device_name": "Ada's iPhone"])
            for path in ["/api/v1/favorites/a", "/api/v1/favorites/b", "/api/v1/read/a", "/api/v1/unlikes/c"] {
                #expect(try await stack.request("PUT", path, token: user.accessToken).status == 200, "\(path)")
            }
            #expect(try await stack.request("DELETE", "/api/v1/favorites/b", token: user.accessToken).status == 204)

            let detail = try await stack.request("GET", "/admin/api/users/\(user.userID)", headers: admin)
            #expect(detail.status == 200)
            #expect(detail.json["id"] as? String == user.userID)
            #expect(detail.json["is_active"] as? Bool == true)
            let counts = try #require(detail.json["counts"] as? [String: Int])
            #expect(counts == ["favorites": 1, "read": 1, "unlikes": 1])
            let sessions = try #require(detail.json["sessions"] as? [[String: Any]])
            #expect(sessions.count == 1)
            #expect(sessions.first?["device_name"] as? String == "Ada's iPhone")
            let sessionID = try #require(sessions.first?["id"] as? String)
            #expect(sessionID == sessionID.lowercased() && UUID(uuidString: sessionID) != nil)
            #expect(sessions.first?["last_used_at"] is String)
            #expect((detail.json["identities"] as? [[String: Any]])?.first?["provider"] as? String == "apple")

            let revoke = try await stack.request("POST", "/admin/api/users/\(user.userID)/revoke-sessions", headers: admin)
            #expect(revoke.json["revoked_sessions"] as? Int == 1)
            let after = try await stack.request("GET", "/admin/api/users/\(user.userID)", headers: admin)
            #expect((after.json["sessions"] as? [Any])?.isEmpty == true, "a revoked session is no longer listed")

            let nobody = try await stack.request("GET", "/admin/api/users/\(UUID().uuidString.lowercased())", headers: admin)
            #expect(nobody.status == 404)
            #expect(nobody.errorCode == "not_found")
            #expect(try await stack.request("GET", "/admin/api/users/\(user.userID)").status == 401)
        }
    }

    @Test func theConsoleAndTheDocumentAreServed() async throws {
        try await Stack.with { stack in
            let page = try await stack.request("GET", "/admin")
            #expect(page.status == 200)
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
            #expect(String(buffer: page.body).contains("/admin/console.js"))
            let script = try await stack.request("GET", "/admin/console.js")
            #expect(script.header("Content-Type")?.hasPrefix("text/javascript") == true)
            #expect(script.header("X-Content-Type-Options") == "nosniff")

            let document = try await stack.request("GET", "/openapi.json")
            #expect(document.status == 200)
            #expect(document.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(document.json["openapi"] as? String == "3.1.0")
            #expect((document.json["paths"] as? [String: Any])?["/api/v1/favorites/{item_id}"] != nil)
        }
    }
}
