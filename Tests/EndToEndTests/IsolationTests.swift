import Foundation
import Testing

/// Two users through the public API, on the same item ids: neither can read nor change the
/// other's favorites, read marks, unlikes or changes feed.
@Suite("End to end: one user's state is theirs alone", .timeLimit(.minutes(5)))
struct IsolationTests {
    @Test func oneUserCanNeverReadOrChangeAnothersState() async throws {
        try await Stack.with { stack in
            let alice = try await stack.signInApple()
            let bob = try await stack.signInApple()
            #expect(try await stack.request("PUT", "/api/v1/favorites/shared", body: ["nickname": "alice's"], token: alice.accessToken).status == 200)
            #expect(try await stack.request("PUT", "/api/v1/read/shared", token: alice.accessToken).status == 200)
            #expect(try await stack.request("PUT", "/api/v1/unlikes/alice-only", token: alice.accessToken).status == 200)

            // Bob sees none of it.
            for path in ["/api/v1/favorites", "/api/v1/read", "/api/v1/unlikes"] {
                let list = try await stack.request("GET", path, token: bob.accessToken)
                #expect(list.status == 200)
                #expect((list.json["items"] as? [Any])?.isEmpty == true, "\(path): \(String(buffer: list.body))")
            }
            let changes = try await stack.request("GET", "/api/v1/state/changes", token: bob.accessToken)
            #expect((changes.json["changes"] as? [Any])?.isEmpty == true)
            let nothing = ["favorited": false, "read": false, "unliked": false]
            let bobsView = try await stack.request(
                "POST", "/api/v1/state/query", body: ["item_ids": ["shared", "alice-only"]], token: bob.accessToken)
            #expect(bobsView.json["items"] as? [String: [String: Bool]] == ["shared": nothing, "alice-only": nothing])

            // Bob's writes on the same ids change Bob's state only.
            #expect(try await stack.request("PUT", "/api/v1/favorites/shared", body: ["nickname": "bob's"], token: bob.accessToken).status == 200)
            #expect(try await stack.request("DELETE", "/api/v1/read/shared", token: bob.accessToken).status == 204)
            #expect(try await stack.request("DELETE", "/api/v1/unlikes/alice-only", token: bob.accessToken).status == 204)
            #expect(try await stack.request("POST", "/api/v1/favorites/alice-only/toggle", token: bob.accessToken).json["favorited"] as? Bool == true)
            #expect(try await stack.request("POST", "/api/v1/read/batch", body: ["item_ids": ["shared"], "read": false], token: bob.accessToken).status == 200)

            let favorites = try await stack.request("GET", "/api/v1/favorites", token: alice.accessToken)
            let items = try #require(favorites.json["items"] as? [[String: Any]])
            #expect(items.map { $0["item_id"] as? String } == ["shared"])
            #expect(items.first?["nickname"] as? String == "alice's")
            let alicesView = try await stack.request(
                "POST", "/api/v1/state/query", body: ["item_ids": ["shared", "alice-only"]], token: alice.accessToken)
            #expect(
                alicesView.json["items"] as? [String: [String: Bool]] == [
                    "shared": ["favorited": true, "read": true, "unliked": false],
                    "alice-only": ["favorited": false, "read": false, "unliked": true],
                ])

            // A cursor from Alice's list pages Bob's list, never Alice's.
            #expect(try await stack.request("PUT", "/api/v1/favorites/second", token: alice.accessToken).status == 200)
            let page = try await stack.request("GET", "/api/v1/favorites?limit=1", token: alice.accessToken)
            let cursor = try #require(page.json["next_cursor"] as? String)
            let bobsPage = try await stack.request(
                "GET", "/api/v1/favorites?limit=200&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                token: bob.accessToken)
            let bobsItems = (bobsPage.json["items"] as? [[String: Any]] ?? []).compactMap { $0["nickname"] as? String }
            #expect(!bobsItems.contains("alice's"))
        }
    }
}
