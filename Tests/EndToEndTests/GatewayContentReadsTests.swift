import Foundation
import NIOCore
import Testing

/// The gateway's own reads of the content schema (`CONTENT_READ_DATABASE_URL`, as the stack
/// runs it) against content-state's answers over RPC: a second gateway without the setting
/// asks content-state, and the two answer every read, every page and every refusal alike.
@Suite("End to end: the gateway's own content reads", .timeLimit(.minutes(5)))
struct GatewayContentReadsTests {
    @Test func theGatewaysOwnReadsAnswerAsContentStateDoes() async throws {
        try await Stack.with { stack in
            let token = try await stack.signInApple().accessToken
            for index in 0..<7 {
                var body: [String: Any] = ["position": 7 - index]
                if index.isMultiple(of: 2) { body["nickname"] = "näme \"\(index)\" / ✓" }
                #expect(try await stack.request("PUT", "/api/v1/favorites/item-\(index)", body: body, token: token).status == 200)
            }
            #expect(try await stack.request("PUT", "/api/v1/read/item-1", token: token).status == 200)
            #expect(try await stack.request("PUT", "/api/v1/unlikes/item-9", token: token).status == 200)
            #expect(try await stack.request("DELETE", "/api/v1/favorites/item-3", token: token).status == 204)

            let firstPage = try await stack.request("GET", "/api/v1/favorites?limit=2", token: token)
            let cursor = try #require(firstPage.json["next_cursor"] as? String)
            let changesPage = try await stack.request("GET", "/api/v1/state/changes?limit=3", token: token)
            let since = try #require(changesPage.json["next_cursor"] as? String)
            let reads: [(String, String, Any?)] = [
                ("GET", "/api/v1/favorites", nil),
                ("GET", "/api/v1/favorites?order=position&limit=3", nil),
                ("GET", "/api/v1/favorites?limit=2&cursor=\(cursor)", nil),
                ("GET", "/api/v1/state/changes", nil),
                ("GET", "/api/v1/state/changes?limit=3&since=\(since)", nil),
                ("POST", "/api/v1/state/query", ["item_ids": ["item-0", "item-1", "item-3", "item-9", "nothing", "item-0"]]),
                ("POST", "/api/v1/state/query", ["item_ids": [String]()]),
                // Refusals: content-state's rules, whichever process applies them.
                ("GET", "/api/v1/favorites?cursor=nonsense", nil),
                ("GET", "/api/v1/favorites?order=position&cursor=\(cursor)", nil),
                ("GET", "/api/v1/favorites?limit=0", nil),
                ("GET", "/api/v1/state/changes?since=\(cursor)", nil),
                ("POST", "/api/v1/state/query", ["item_ids": [""]]),
                ("POST", "/api/v1/state/query", ["item_ids": (0...500).map { "i\($0)" }]),
            ]
            try await stack.withAnotherGateway(environment: ["CONTENT_READ_DATABASE_URL": ""]) { overRPC, _ in
                for (method, path, body) in reads {
                    let own = try await stack.request(method, path, body: body, token: token)
                    let asked = try await stack.request(method, path, body: body, token: token, gateway: overRPC)
                    #expect(own.status == asked.status, "\(method) \(path): \(own.status) against \(asked.status)")
                    if own.status == 200 {
                        #expect(String(buffer: own.body) == String(buffer: asked.body), "\(method) \(path)")
                    } else {
                        #expect(own.status == 400, "\(method) \(path): \(String(buffer: own.body))")
                        let (ownError, askedError) = (own.json["error"] as? [String: Any], asked.json["error"] as? [String: Any])
                        #expect(ownError?["code"] as? String == askedError?["code"] as? String, "\(method) \(path)")
                        #expect(ownError?["message"] as? String == askedError?["message"] as? String, "\(method) \(path)")
                    }
                }
            }
            let favorites = try await stack.request("GET", "/api/v1/favorites?order=position", token: token)
            let ids = (favorites.json["items"] as? [[String: Any]])?.compactMap { $0["item_id"] as? String }
            #expect(ids == ["item-6", "item-5", "item-4", "item-2", "item-1", "item-0"])
        }
    }

    /// A write through content-state is in the gateway's next read: both use the same primary.
    @Test func aWriteIsInTheNextRead() async throws {
        try await Stack.with { stack in
            let token = try await stack.signInApple().accessToken
            for index in 0..<20 {
                let item = "fresh-\(index)"
                #expect(try await stack.request("PUT", "/api/v1/favorites/\(item)", token: token).status == 200)
                let page = try await stack.request("GET", "/api/v1/favorites?limit=1", token: token)
                #expect((page.json["items"] as? [[String: Any]])?.first?["item_id"] as? String == item)
                #expect(try await stack.request("DELETE", "/api/v1/favorites/\(item)", token: token).status == 204)
                let state = try await stack.request("POST", "/api/v1/state/query", body: ["item_ids": [item]], token: token)
                #expect((state.json["items"] as? [String: [String: Bool]])?[item]?["favorited"] == false)
            }
            let changes = try await stack.request("GET", "/api/v1/state/changes?limit=200", token: token)
            #expect((changes.json["changes"] as? [Any])?.count == 20)
            #expect(changes.json["has_more"] as? Bool == false)
        }
    }
}
