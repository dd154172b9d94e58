import Foundation
import Testing

@testable import LatchkeyClient

/// ContentSync on its own: a refused cursor starts over, syncs take turns, the changes carry
/// their times, and a first sync of 10,000 items saves its checkpoint a few times, not per page.
@Suite struct SyncTests {
    let clock = TestClock()

    func client(_ handler: @escaping StubTransport.Handler) throws -> (LatchkeyClient, StubTransport) {
        let transport = StubTransport(handler)
        return (makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now))), transport)
    }

    static func since(_ request: HTTPRequest) -> String? {
        URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "since" }?.value
    }

    @Test func aRefusedCursorStartsOverByItself() async throws {
        let (client, transport) = try self.client { request in
            switch Self.since(request) {
            case "stale": return Reply.error(400, "bad_request")
            case nil:
                return Reply.json(200, [
                    "changes": [ContentTests.change("kept", favorited: true), ContentTests.change("new", read: true), ContentTests.change("gone")],
                    "next_cursor": "c1", "has_more": false,
                ])
            default: return Reply.json(200, ["changes": [], "next_cursor": "c1", "has_more": false])
            }
        }
        let userID = Reply.userJSON["id"] as! String
        let store = InMemorySyncCursorStore(SyncCheckpoint(userID: userID, cursor: "stale", knownItemIDs: ["kept", "gone"]))
        let batch = try await ContentSync(client: client, store: store).sync { _ in }
        #expect(batch.inserted.map(\.itemID) == ["new"])
        #expect(batch.updated.map(\.itemID) == ["kept"])
        #expect(batch.removed.map(\.itemID) == ["gone"])
        #expect(await store.load() == SyncCheckpoint(userID: userID, cursor: "c1", knownItemIDs: ["kept", "new"]))
        #expect(transport.requests.map { Self.since($0) } == ["stale", nil])
    }

    @Test func syncsOfOneContentSyncTakeTurns() async throws {
        let running = Locked((now: 0, most: 0))
        let (client, _) = try self.client { _ in
            running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            try await Task.sleep(for: .milliseconds(20))
            running.withLock { $0.now -= 1 }
            return Reply.json(200, ["changes": [ContentTests.change("a", favorited: true)], "next_cursor": "c1", "has_more": false])
        }
        let sync = ContentSync(client: client)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { try await sync.sync { _ in } } }
            try await group.waitForAll()
        }
        #expect(running.withLock { $0.most } == 1)
    }

    @Test func changesCarryTheirTimes() async throws {
        let (client, _) = try self.client { _ in
            var change = ContentTests.change("a", favorited: true, read: true)
            change["favorited_at"] = "2026-11-23T10:00:00Z"
            change["read_at"] = "2026-11-23T11:00:00.5Z"
            change["unliked_at"] = NSNull()
            return Reply.json(200, ["changes": [change, ContentTests.change("b", read: true)], "next_cursor": "c1", "has_more": false])
        }
        let batch = try await ContentSync(client: client).sync { _ in }
        let first = try #require(batch.inserted.first)
        #expect(first.favoritedAt == RFC3339.date(from: "2026-11-23T10:00:00Z"))
        #expect(first.readAt == RFC3339.date(from: "2026-11-23T11:00:00.5Z"))
        #expect(first.unlikedAt == nil)
        #expect(batch.inserted.last?.readAt == nil)  // a gateway that does not send them
    }

    /// Counts saves and the ids they wrote.
    actor CountingCursorStore: SyncCursorStore {
        var checkpoint: SyncCheckpoint?
        var saves = 0
        var idsWritten = 0
        func load() -> SyncCheckpoint? { self.checkpoint }
        func save(_ checkpoint: SyncCheckpoint) {
            self.checkpoint = checkpoint
            self.saves += 1
            self.idsWritten += checkpoint.knownItemIDs.count
        }
        func clear() { self.checkpoint = nil }
    }

    @Test func aFirstSyncOfTenThousandItemsDoesLinearWork() async throws {
        let pageSize = 50
        let (client, _) = try self.client { request in
            let start = Int(Self.since(request) ?? "0") ?? 0
            let end = min(start + pageSize, 10_000)
            let changes = (start..<end).map { ContentTests.change("item-\($0)", favorited: true) }
            return Reply.json(200, ["changes": changes, "next_cursor": String(end), "has_more": end < 10_000])
        }
        let store = CountingCursorStore()
        let batch = try await ContentSync(client: client, store: store, pageSize: pageSize).sync { _ in }
        #expect(batch.inserted.count == 10_000)
        #expect(await store.checkpoint?.knownItemIDs.count == 10_000)
        #expect(await store.checkpoint?.cursor == "10000")
        // 200 pages; per-page saves would write 1,005,000 ids.
        #expect(await store.saves < 20)
        #expect(await store.idsWritten <= 3 * 10_000)
    }
}
