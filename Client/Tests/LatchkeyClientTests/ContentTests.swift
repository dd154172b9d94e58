import Foundation
import Testing

@testable import LatchkeyClient

/// Favorites, read marks, unlikes and state queries as the client sends them, pagination as an
/// async sequence, and the sync helper's sorting of the changes feed.
@Suite struct ContentTests {
    let clock = TestClock()

    func signedIn(_ handler: @escaping StubTransport.Handler) throws -> (LatchkeyClient, StubTransport) {
        let transport = StubTransport(handler)
        return (makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now))), transport)
    }

    static func favorite(_ id: String, nickname: Any = NSNull(), position: Any = NSNull()) -> [String: Any] {
        ["item_id": id, "nickname": nickname, "position": position, "favorited_at": "2026-11-23T10:04:05.123Z"]
    }

    @Test func favoritePutSendsOnlyWhatChangesAndEncodesTheItemID() async throws {
        let (client, transport) = try self.signedIn { _ in Reply.json(200, Self.favorite("article/42 ü", nickname: "later", position: 3)) }
        let favorite = try await client.favorite("article/42 ü", nickname: .set("later"), position: .set(3))
        #expect(favorite.itemID == "article/42 ü")
        #expect(favorite.nickname == "later")
        #expect(favorite.position == 3)
        try await client.favorite("article/42 ü", nickname: .cleared)
        try await client.favorite("article/42 ü")

        let puts = transport.requests
        #expect(puts.allSatisfy { $0.method == "PUT" && $0.bearer == "access-1" })
        #expect(puts.first?.url.absoluteString == "https://gateway.test/api/v1/favorites/article%2F42%20%C3%BC")
        #expect(puts[0].json["nickname"] as? String == "later")
        #expect(puts[0].json["position"] as? Int == 3)
        #expect(puts[1].json["nickname"] is NSNull)
        #expect(puts[1].json["position"] == nil)
        #expect(puts[2].json.isEmpty)
    }

    @Test func toggleUnfavoriteReadUnlikeBatchAndQuery() async throws {
        let (client, transport) = try self.signedIn { request in
            switch (request.method, request.url.path) {
            case ("POST", "/api/v1/favorites/b/toggle"): return Reply.json(200, ["item_id": "b", "favorited": true])
            case ("PUT", "/api/v1/read/b"): return Reply.json(200, ["item_id": "b", "read_at": "2026-11-23T10:04:05Z"])
            case ("PUT", "/api/v1/unlikes/c"): return Reply.json(200, ["item_id": "c", "unliked_at": "2026-11-23T10:04:05Z"])
            case ("POST", "/api/v1/read/batch"): return Reply.json(200, ["updated": 2])
            case ("POST", "/api/v1/state/query"):
                return Reply.json(200, ["items": ["b": ["favorited": true, "read": true, "unliked": false]]])
            case ("DELETE", _): return Reply.noContent
            default: return Reply.error(404, "not_found")
            }
        }
        #expect(try await client.toggleFavorite("b"))
        #expect(try await client.markRead("b").itemID == "b")
        #expect(try await client.unlike("c").unlikedAt == RFC3339.date(from: "2026-11-23T10:04:05Z"))
        #expect(try await client.setRead(true, for: ["x", "y"]) == 2)
        #expect(try await client.state(of: ["b"]) == ["b": ItemState(favorited: true, read: true, unliked: false)])
        try await client.unfavorite("b")
        try await client.markUnread("b")
        try await client.removeUnlike("c")

        let batch = try #require(transport.requests("POST", "/api/v1/read/batch").first)
        #expect(batch.json["item_ids"] as? [String] == ["x", "y"])
        #expect(batch.json["read"] as? Bool == true)
        #expect(transport.requests("POST", "/api/v1/state/query").first?.json["item_ids"] as? [String] == ["b"])
        #expect(transport.requests.filter { $0.method == "DELETE" }.map(\.url.path) == ["/api/v1/favorites/b", "/api/v1/read/b", "/api/v1/unlikes/c"])
    }

    @Test func favoritesArePagedLazilyAsAnAsyncSequence() async throws {
        let (client, transport) = try self.signedIn { request in
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            switch query.first(where: { $0.name == "cursor" })?.value {
            case nil: return Reply.json(200, ["items": [Self.favorite("a"), Self.favorite("b")], "next_cursor": "page-2"])
            case "page-2": return Reply.json(200, ["items": [Self.favorite("c")], "next_cursor": "page-3"])
            default: return Reply.json(200, ["items": [], "next_cursor": NSNull()])
            }
        }
        var seen: [String] = []
        for try await favorite in client.favorites(order: .position, pageSize: 2) {
            seen.append(favorite.itemID)
            if seen.count == 1 { #expect(transport.requests.count == 1) }
        }
        #expect(seen == ["a", "b", "c"])
        let queries = transport.requests.map { $0.url.query ?? "" }
        #expect(queries == ["limit=2&order=position", "limit=2&cursor=page-2&order=position", "limit=2&cursor=page-3&order=position"])
    }

    @Test func readAndUnlikeListsArePagedToo() async throws {
        let (client, _) = try self.signedIn { request in
            if request.url.path == "/api/v1/read" {
                return Reply.json(200, ["items": [["item_id": "r", "read_at": "2026-11-23T10:04:05Z"]], "next_cursor": NSNull()])
            }
            return Reply.json(200, ["items": [["item_id": "u", "unliked_at": "2026-11-23T10:04:05Z"]], "next_cursor": NSNull()])
        }
        var read: [String] = []
        for try await mark in client.readItems() { read.append(mark.itemID) }
        var unliked: [String] = []
        for try await mark in client.unlikedItems() { unliked.append(mark.itemID) }
        #expect(read == ["r"])
        #expect(unliked == ["u"])
    }

    static func change(_ id: String, favorited: Bool = false, nickname: String? = nil, read: Bool = false) -> [String: Any] {
        [
            "item_id": id, "favorited": favorited, "nickname": nickname ?? NSNull(), "position": NSNull(), "read": read,
            "unliked": false, "updated_at": "2026-11-23T10:04:05.123Z",
        ]
    }

    @Test func syncHandsOverInsertsUpdatesAndRemovalsFromThePersistedCursor() async throws {
        // The feed: two pages at first, then one more page of changes after cursor "c3".
        let (client, transport) = try self.signedIn { request in
            let since = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "since" }?.value
            switch since {
            case nil:
                return Reply.json(200, ["changes": [Self.change("a", favorited: true), Self.change("gone")], "next_cursor": "c2", "has_more": true])
            case "c2":
                return Reply.json(200, ["changes": [Self.change("b", read: true)], "next_cursor": "c3", "has_more": false])
            case "c3":
                return Reply.json(200, [
                    "changes": [Self.change("a", favorited: true, nickname: "x"), Self.change("b"), Self.change("d", favorited: true)],
                    "next_cursor": "c4", "has_more": false,
                ])
            default:
                return Reply.json(200, ["changes": [], "next_cursor": since ?? "", "has_more": false])
            }
        }
        let store = InMemorySyncCursorStore()
        let batches = Locked<[SyncBatch]>([])
        let first = try await ContentSync(client: client, store: store).sync { batch in batches.withLock { $0.append(batch) } }
        #expect(first.inserted.map(\.itemID) == ["a", "b"])
        #expect(first.updated.isEmpty && first.removed.isEmpty)
        #expect(batches.withLock { $0.count } == 2)  // one per page
        #expect(await store.load() == SyncCheckpoint(userID: Reply.userJSON["id"] as! String, cursor: "c3", knownItemIDs: ["a", "b"]))

        // A new ContentSync (the app relaunched) goes on from the stored cursor.
        let second = try await ContentSync(client: client, store: store).sync { _ in }
        #expect(second.inserted.map(\.itemID) == ["d"])
        #expect(second.updated.map(\.itemID) == ["a"])
        #expect(second.updated.first?.nickname == "x")
        #expect(second.removed.map(\.itemID) == ["b"])
        #expect(await store.load()?.cursor == "c4")

        // Nothing new: no batch handed over, the cursor stays.
        let third = try await ContentSync(client: client, store: store).sync { _ in Issue.record("an empty batch was handed over") }
        #expect(third.isEmpty)
        let sinces = transport.requests.map { $0.url.query ?? "" }
        #expect(sinces == ["", "since=c2", "since=c3", "since=c4"])
    }

    @Test func aFailedApplyDoesNotMoveTheCursor() async throws {
        struct AppFailure: Error {}
        let (client, _) = try self.signedIn { _ in
            Reply.json(200, ["changes": [Self.change("a", favorited: true)], "next_cursor": "c2", "has_more": false])
        }
        let store = InMemorySyncCursorStore()
        await #expect(throws: AppFailure.self) { try await ContentSync(client: client, store: store).sync { _ in throw AppFailure() } }
        #expect(await store.load() == nil)
        let again = try await ContentSync(client: client, store: store).sync { _ in }
        #expect(again.inserted.map(\.itemID) == ["a"])
    }

    @Test func anotherUsersCheckpointIsNotUsed() async throws {
        let (client, transport) = try self.signedIn { _ in Reply.json(200, ["changes": [], "next_cursor": "c1", "has_more": false]) }
        let store = InMemorySyncCursorStore(SyncCheckpoint(userID: "someone-else", cursor: "theirs", knownItemIDs: ["x"]))
        try await ContentSync(client: client, store: store).sync { _ in }
        #expect(transport.requests.first?.url.query == nil)
        #expect(await store.load()?.knownItemIDs == [])
    }
}
