import ContentStateService
import ContentStateAPI
import Foundation
import Synchronization
import Testing

/// Many writers of one user at once: per-user versions and the row lock keep state exact.
@Suite struct ConcurrencyTests {
    @Test func twoHundredConcurrentTogglesEndInTheStateTheirCountImplies() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    let result: FavoriteToggleResult = try await service.call(ContentState.favoritesToggle, ItemParams(userID: user, itemID: "hot"))
                    return result.favorited
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 200)
        #expect(results.filter { $0 }.count == 100, "toggles alternate: half of them favorited")
        let state: StateQueryResult = try await service.call(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: ["hot"]))
        #expect(state.items["hot"]?.favorited == false, "an even number of toggles ends unfavorited")

        let rows = try await service.postgres.query(
            "SELECT count(*) AS rows, max(version) AS version FROM content.item_states WHERE user_id = $1", [.uuid(user)])
        #expect(try rows[0].decode("rows", as: Int.self) == 1, "one row per (user, item)")
        #expect(try rows[0].decode("version", as: Int.self) == 200, "each toggle took exactly one version")
        #expect(try #require(try await service.versionRow(of: user)).favoriteCount == 0)
    }

    @Test func concurrentPutsOfOneItemWriteOnceAndConcurrentRemovesToo() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "same"))
                }
            }
            try await group.waitForAll()
        }
        let removals = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    let result: RemovalResult = try await service.call(ContentState.favoritesRemove, ItemParams(userID: user, itemID: "same"))
                    return result.changed
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(removals == 1, "exactly one remove found the favorite")
        let rows = try await service.postgres.query(
            "SELECT version FROM content.item_states WHERE user_id = $1", [.uuid(user)])
        #expect(rows.count == 1)
        #expect(try rows[0].decode("version", as: Int.self) == 2, "one put and one remove changed anything")
    }

    @Test func concurrentWritesOfManyItemsTakeDistinctConsecutiveVersions() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    if index % 2 == 0 {
                        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "i\(index)"))
                    } else {
                        let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "i\(index)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let rows = try await service.postgres.query(
            "SELECT version FROM content.item_states WHERE user_id = $1 ORDER BY version", [.uuid(user)])
        #expect(try rows.map { try $0.decode("version", as: Int.self) } == Array(1...100))
    }

    @Test func aPollDuringConcurrentWritesNeverSkipsAChange() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let finished = Atomic<Bool>(false)
        async let writes: Void = withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "w\(index)"))
                }
            }
            try await group.waitForAll()
            finished.store(true, ordering: .sequentiallyConsistent)
        }
        var seen: [String] = []
        var since: String?
        var polls = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            try #require(ContinuousClock.now < deadline, "the changes feed never drained")
            // Once the writers were done before a poll began, a drained poll has seen everything.
            let writersDone = finished.load(ordering: .sequentiallyConsistent)
            let page: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user, since: since, limit: 7))
            seen += page.changes.map(\.itemID)
            since = page.nextCursor
            polls += 1
            if writersDone && !page.hasMore { break }
        }
        try await writes
        #expect(seen.count == 200, "every change seen exactly once")
        #expect(Set(seen).count == 200)
        #expect(polls > 1)
    }
}
