import Foundation
import Testing

/// Guest accounts through the real stack (DESIGN.md section 9.1): a guest made without a
/// provider uses the API like anyone.
@Suite("End to end: guest accounts", .timeLimit(.minutes(8)))
struct GuestAccountTests {
    @Test func guestGetsASessionAndUsesEveryRoute() async throws {
        try await Stack.with { stack in
            let reply = try await stack.request("POST", "/api/v1/auth/guest", body: ["device_name": "phone"])
            #expect(reply.status == 200)
            #expect(reply.header("Cache-Control") == "no-store")
            #expect(reply.json["is_new_user"] as? Bool == true)
            let user = try #require(reply.json["user"] as? [String: Any])
            #expect(user["is_guest"] as? Bool == true)
            #expect(user["providers"] as? [String] == [])
            let guest = try Session(reply.json)

            let put = try await stack.request("PUT", "/api/v1/favorites/a", body: ["nickname": "n"], token: guest.accessToken)
            #expect(put.status == 200)
            #expect(try await stack.request("PUT", "/api/v1/read/b", token: guest.accessToken).status == 200)
            #expect(try await stack.request("PUT", "/api/v1/unlikes/c", token: guest.accessToken).status == 200)
            let changes = try await stack.request("GET", "/api/v1/state/changes", token: guest.accessToken)
            #expect((changes.json["changes"] as? [Any])?.count == 3)
            let me = try await stack.request("GET", "/api/v1/auth/me", token: guest.accessToken)
            #expect(me.json["is_guest"] as? Bool == true)
            let sessions = try await stack.request("GET", "/api/v1/auth/sessions", token: guest.accessToken)
            #expect((sessions.json["sessions"] as? [[String: Any]])?.first?["device_name"] as? String == "phone")
            let refreshed = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": guest.refreshToken])
            #expect(refreshed.status == 200)
            #expect((refreshed.json["user"] as? [String: Any])?["is_guest"] as? Bool == true)

            // No body at all is a guest too; a signed-in user is no guest.
            let bare = try await stack.request("POST", "/api/v1/auth/guest")
            #expect(bare.status == 200)
            #expect(try Session(bare.json).userID != guest.userID)
            let apple = try await stack.request(
                "POST", "/api/v1/auth/apple", body: ["identity_token": try await stack.appleToken(subject: "apple-\(UUID().uuidString)")])
            #expect((apple.json["user"] as? [String: Any])?["is_guest"] as? Bool == false)
            #expect(try await stack.metrics("gateway").contains(#"gateway_guest_accounts_total{event="created"} 2"#))
        }
    }
}
