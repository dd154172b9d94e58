import ContentStateService
import ContentStateAPI
import Foundation
import Testing

/// Keyset pagination over large lists: every item exactly once, in order, also while the
/// user keeps writing.
@Suite struct PaginationTests {
    /// Favorites `count` items (`item-0000` ...) from 16 concurrent callers, so many share a
    /// millisecond and the item id must break ties.
    func favoriteMany(_ service: TestService, user: UUID, count: Int, position: @escaping @Sendable (Int) -> Int64? = { _ in nil }) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    for index in stride(from: worker, to: count, by: 16) {
                        let _: Favorite = try await service.call(
                            ContentState.favoritesPut,
                            FavoritePutParams(userID: user, itemID: String(format: "item-%04d", index), position: .set(position(index))))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    func allPages(_ service: TestService, _ params: FavoritesListParams) async throws -> [Favorite] {
        var params = params
        var items: [Favorite] = []
        var pages = 0
        while true {
            let page: FavoritesPage = try await service.call(ContentState.favoritesList, params)
            items += page.items
            pages += 1
            try #require(pages <= 10_000, "the cursor never reaches the end")
            guard let next = page.nextCursor else { break }
            #expect(page.items.count == params.limit ?? 50, "only the last page is short")
            params.cursor = next
            guard pages < 1000 else { break }
        }
        return items
    }

    @Test func recentOrderPagesOver1000FavoritesWithoutRepeatsOrSkips() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        try await favoriteMany(service, user: user, count: 1000)
        let items = try await allPages(service, FavoritesListParams(userID: user, order: .recent, limit: 37))
        #expect(items.count == 1000)
        #expect(Set(items.map(\.itemID)).count == 1000)
        let expected = items.sorted { ($0.favoritedAt, $0.itemID) > ($1.favoritedAt, $1.itemID) }
        #expect(items.map(\.itemID) == expected.map(\.itemID), "newest first, ties by item id descending")
    }

    @Test func positionOrderPagesOver1000FavoritesWithoutRepeatsOrSkips() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        // Positions repeat (index % 97), are negative for some, and every tenth item has none.
        let position: @Sendable (Int) -> Int64? = { $0 % 10 == 0 ? nil : Int64($0 % 97) - 40 }
        try await favoriteMany(service, user: user, count: 1000, position: position)
        let items = try await allPages(service, FavoritesListParams(userID: user, order: .position, limit: 50))
        #expect(items.count == 1000)
        let expected = (0..<1000).map { (String(format: "item-%04d", $0), position($0)) }
            .sorted { ($0.1 ?? .max, $0.0) < ($1.1 ?? .max, $1.0) }
            .map(\.0)
        #expect(items.map(\.itemID) == expected)
    }

    @Test func pagingWhileTheUserKeepsFavoritingNeverRepeatsOrSkipsAnItem() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        try await favoriteMany(service, user: user, count: 300)
        let writer = Task {
            for index in 0..<100 {
                let _: Favorite = try await service.call(
                    ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "new-\(index)", position: .set(-1)))
            }
        }
        var seenRecent: [String] = []
        var seenPosition: [String] = []
        var recent = FavoritesListParams(userID: user, order: .recent, limit: 10)
        var byPosition = FavoritesListParams(userID: user, order: .position, limit: 10)
        var recentDone = false
        var positionDone = false
        while !(recentDone && positionDone) {
            try #require(seenRecent.count + seenPosition.count <= 10_000, "the cursors never reach the end")
            if !recentDone {
                let page: FavoritesPage = try await service.call(ContentState.favoritesList, recent)
                seenRecent += page.items.map(\.itemID)
                recent.cursor = page.nextCursor
                recentDone = page.nextCursor == nil
            }
            if !positionDone {
                let page: FavoritesPage = try await service.call(ContentState.favoritesList, byPosition)
                seenPosition += page.items.map(\.itemID)
                byPosition.cursor = page.nextCursor
                positionDone = page.nextCursor == nil
            }
        }
        try await writer.value
        for seen in [seenRecent, seenPosition] {
            let original = seen.filter { $0.hasPrefix("item-") }
            #expect(original.count == 300, "every item that existed before paging began appears")
            #expect(Set(seen).count == seen.count, "no item appears twice")
        }
    }

    @Test func readListPagesOver1000ItemsMostRecentFirst() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let ids = (0..<1000).map { String(format: "read-%04d", $0) }
        for chunk in stride(from: 0, to: ids.count, by: 250) {
            let result: ReadBatchResult = try await service.call(
                ContentState.readBatch, ReadBatchParams(userID: user, itemIDs: Array(ids[chunk..<chunk + 250]), read: true))
            #expect(result.updated == 250)
            try await Task.sleep(for: .milliseconds(2))
        }
        var params = PageParams(userID: user, limit: 200)
        var items: [ReadMark] = []
        while true {
            let page: MarksPage<ReadMark> = try await service.call(ContentState.readList, params)
            items += page.items
            try #require(items.count <= 1000, "the cursor repeats items")
            guard let next = page.nextCursor else { break }
            params.cursor = next
        }
        #expect(items.count == 1000)
        #expect(Set(items.map(\.itemID)) == Set(ids))
        let expected = items.sorted { ($0.readAt, $0.itemID) > ($1.readAt, $1.itemID) }
        #expect(items.map(\.itemID) == expected.map(\.itemID))
        #expect(items.first?.itemID.hasPrefix("read-09") == true, "the last batch read is listed first")
    }
}
