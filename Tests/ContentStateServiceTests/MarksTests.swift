import ContentStateService
import ContentStateAPI
import Foundation
import Testing

/// Read status and unlikes: mark, unmark, batch and the lists.
@Suite struct MarksTests {
    @Test func markingReadTwiceKeepsTheFirstTimeAndUnmarkIsIdempotent() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let first: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "r"))
        try await Task.sleep(for: .milliseconds(5))
        let again: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "r"))
        #expect(again == first)
        let unmarked: RemovalResult = try await service.call(ContentState.readUnmark, ItemParams(userID: user, itemID: "r"))
        let unmarkedAgain: RemovalResult = try await service.call(ContentState.readUnmark, ItemParams(userID: user, itemID: "r"))
        #expect(unmarked.changed)
        #expect(!unmarkedAgain.changed)
        let page: MarksPage<ReadMark> = try await service.call(ContentState.readList, PageParams(userID: user))
        #expect(page.items.isEmpty)
        #expect(page.nextCursor == nil)
    }

    @Test func readBatchCountsOnlyItemsItChanged() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "b"))
        let marked: ReadBatchResult = try await service.call(
            ContentState.readBatch, ReadBatchParams(userID: user, itemIDs: ["a", "b", "c", "a"], read: true))
        #expect(marked.updated == 2, "b was read already and a repeats")
        let state: StateQueryResult = try await service.call(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: ["a", "b", "c", "d"]))
        #expect(state.items.filter(\.value.read).keys.sorted() == ["a", "b", "c"])
        let unmarked: ReadBatchResult = try await service.call(
            ContentState.readBatch, ReadBatchParams(userID: user, itemIDs: ["a", "d"], read: false))
        #expect(unmarked.updated == 1)
        let empty: ReadBatchResult = try await service.call(ContentState.readBatch, ReadBatchParams(userID: user, itemIDs: [], read: true))
        #expect(empty.updated == 0)
        let page: MarksPage<ReadMark> = try await service.call(ContentState.readList, PageParams(userID: user))
        #expect(Set(page.items.map(\.itemID)) == ["b", "c"])
    }

    @Test func readListIsMostRecentFirstAndPages() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        for item in ["one", "two", "three"] {
            let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: item))
            try await Task.sleep(for: .milliseconds(3))
        }
        let first: MarksPage<ReadMark> = try await service.call(ContentState.readList, PageParams(userID: user, limit: 2))
        #expect(first.items.map(\.itemID) == ["three", "two"])
        let second: MarksPage<ReadMark> = try await service.call(ContentState.readList, PageParams(userID: user, limit: 2, cursor: first.nextCursor))
        #expect(second.items.map(\.itemID) == ["one"])
        #expect(second.nextCursor == nil)
    }

    @Test func unlikesPutRemoveAndListIndependentlyOfFavorites() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "both"))
        let unlike: Unlike = try await service.call(ContentState.unlikesPut, ItemParams(userID: user, itemID: "both"))
        let again: Unlike = try await service.call(ContentState.unlikesPut, ItemParams(userID: user, itemID: "both"))
        #expect(again == unlike)
        let _: Unlike = try await service.call(ContentState.unlikesPut, ItemParams(userID: user, itemID: "other"))
        let page: MarksPage<Unlike> = try await service.call(ContentState.unlikesList, PageParams(userID: user))
        #expect(Set(page.items.map(\.itemID)) == ["both", "other"])
        let state: StateQueryResult = try await service.call(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: ["both"]))
        #expect(state.items["both"] == ItemFlags(favorited: true, read: false, unliked: true))

        let removed: RemovalResult = try await service.call(ContentState.unlikesRemove, ItemParams(userID: user, itemID: "both"))
        let removedAgain: RemovalResult = try await service.call(ContentState.unlikesRemove, ItemParams(userID: user, itemID: "both"))
        #expect(removed.changed && !removedAgain.changed)
        let after: MarksPage<Unlike> = try await service.call(ContentState.unlikesList, PageParams(userID: user))
        #expect(after.items.map(\.itemID) == ["other"])
        let favorites: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: user))
        #expect(favorites.items.map(\.itemID) == ["both"])
    }
}
