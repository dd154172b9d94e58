import Foundation
import NIOCore
import Testing

/// The gateway's own content calls (`CONTENT_DATABASE_URL`, as the stack runs it) against
/// content-state's answers over RPC: a second gateway without the setting asks content-state,
/// and the two answer every read, every page, every write and every refusal alike.
@Suite("End to end: the gateway's own content calls", .timeLimit(.minutes(5)))
struct GatewayContentCallsTests {
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
            try await stack.withAnotherGateway(environment: ["CONTENT_DATABASE_URL": ""]) { overRPC, _ in
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

    /// The same writes, each of one user through this gateway and of another through a gateway
    /// that calls content-state, get the same answers (times aside, which are each write's own)
    /// and leave the two users with the same state.
    @Test func theGatewaysOwnWritesAnswerAsContentStateDoes() async throws {
        try await Stack.with { stack in
            let (own, asked) = (try await stack.signInApple().accessToken, try await stack.signInApple().accessToken)
            let writes: [(String, String, Any?)] = [
                ("PUT", "/api/v1/favorites/a", ["nickname": "näme \"1\" / ✓", "position": 3]),
                ("PUT", "/api/v1/favorites/a", ["position": NSNull()]),
                ("PUT", "/api/v1/favorites/b", nil),
                ("POST", "/api/v1/favorites/b/toggle", nil),
                ("POST", "/api/v1/favorites/b/toggle", nil),
                ("PUT", "/api/v1/favorites/c%20d", ["nickname": "tab\tline\n"]),
                ("DELETE", "/api/v1/favorites/a", nil),
                ("DELETE", "/api/v1/favorites/a", nil),
                ("PUT", "/api/v1/read/c", nil),
                ("PUT", "/api/v1/read/c", nil),
                ("DELETE", "/api/v1/read/c", nil),
                ("POST", "/api/v1/read/batch", ["item_ids": ["d", "e", "d"], "read": true]),
                ("POST", "/api/v1/read/batch", ["item_ids": ["d", "x"], "read": false]),
                ("POST", "/api/v1/read/batch", ["item_ids": [String](), "read": true]),
                ("PUT", "/api/v1/unlikes/f", nil),
                ("DELETE", "/api/v1/unlikes/f", nil),
                ("PUT", "/api/v1/unlikes/g", nil),
                // Refusals: content-state's rules, whichever process applies them.
                ("PUT", "/api/v1/favorites/%01", nil),
                ("PUT", "/api/v1/favorites/h", ["nickname": String(repeating: "x", count: 101)]),
                ("PUT", "/api/v1/favorites/h", ["position": 9_007_199_254_740_992]),
                ("PUT", "/api/v1/read/\(String(repeating: "i", count: 257))", nil),
                ("POST", "/api/v1/favorites/%7F/toggle", nil),
                ("POST", "/api/v1/read/batch", ["item_ids": (0...500).map { "i\($0)" }, "read": true]),
                ("POST", "/api/v1/read/batch", ["item_ids": [""], "read": true]),
                ("DELETE", "/api/v1/unlikes/%C2%80", nil),
            ]
            try await stack.withAnotherGateway(environment: ["CONTENT_DATABASE_URL": ""]) { overRPC, _ in
                for (method, path, body) in writes {
                    let ownReply = try await stack.request(method, path, body: body, token: own)
                    let askedReply = try await stack.request(method, path, body: body, token: asked, gateway: overRPC)
                    #expect(ownReply.status == askedReply.status, "\(method) \(path): \(ownReply.status) against \(askedReply.status)")
                    switch ownReply.status {
                    case 200:
                        #expect(Self.timesLeftOut(ownReply.json) == Self.timesLeftOut(askedReply.json), "\(method) \(path)")
                    case 204:
                        #expect(ownReply.body.readableBytes == 0 && askedReply.body.readableBytes == 0)
                    default:
                        #expect(ownReply.status == 400, "\(method) \(path): \(String(buffer: ownReply.body))")
                        let (ownError, askedError) = (ownReply.json["error"] as? [String: Any], askedReply.json["error"] as? [String: Any])
                        #expect(ownError?["code"] as? String == askedError?["code"] as? String, "\(method) \(path)")
                        #expect(ownError?["message"] as? String == askedError?["message"] as? String, "\(method) \(path)")
                    }
                }
            }
            let ownChanges = try await stack.request("GET", "/api/v1/state/changes", token: own)
            let askedChanges = try await stack.request("GET", "/api/v1/state/changes", token: asked)
            let changes = (ownChanges.json["changes"] as? [[String: Any]])?.map(Self.timesLeftOut)
            #expect(changes == (askedChanges.json["changes"] as? [[String: Any]])?.map(Self.timesLeftOut))
            #expect(changes?.count == 8, "a, b, c d, c, d, e, f and g, not x (never changed): \(String(describing: changes))")
        }
    }

    /// `object` without its times (members ending in `_at`, which each write takes on its own),
    /// but with whether each was there and null, as text for comparing.
    static func timesLeftOut(_ object: [String: Any]) -> String {
        var kept = object
        for key in object.keys where key.hasSuffix("_at") { kept[key] = object[key] is NSNull ? "null" : "a time" }
        let data = (try? JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// A write through content-state is in this gateway's next read, and a write here in
    /// content-state's: the two processes use the same primary.
    @Test func aWriteIsInTheNextRead() async throws {
        try await Stack.with { stack in
            let token = try await stack.signInApple().accessToken
            try await stack.withAnotherGateway(environment: ["CONTENT_DATABASE_URL": ""]) { overRPC, _ in
                for index in 0..<20 {
                    let item = "fresh-\(index)"
                    let (writer, reader) = index.isMultiple(of: 2) ? (overRPC, stack.gatewayURL) : (stack.gatewayURL, overRPC)
                    #expect(try await stack.request("PUT", "/api/v1/favorites/\(item)", token: token, gateway: writer).status == 200)
                    let page = try await stack.request("GET", "/api/v1/favorites?limit=1", token: token, gateway: reader)
                    #expect((page.json["items"] as? [[String: Any]])?.first?["item_id"] as? String == item)
                    #expect(try await stack.request("DELETE", "/api/v1/favorites/\(item)", token: token, gateway: writer).status == 204)
                    let state = try await stack.request("POST", "/api/v1/state/query", body: ["item_ids": [item]], token: token, gateway: reader)
                    #expect((state.json["items"] as? [String: [String: Bool]])?[item]?["favorited"] == false)
                }
            }
            let changes = try await stack.request("GET", "/api/v1/state/changes?limit=200", token: token)
            #expect((changes.json["changes"] as? [Any])?.count == 20)
            #expect(changes.json["has_more"] as? Bool == false)
        }
    }
}
