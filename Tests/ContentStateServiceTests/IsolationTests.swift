import ContentStateService
import ContentStateAPI
import Foundation
import Testing

/// One user can neither read nor change another's state through any method.
@Suite struct IsolationTests {
    @Test func userBSeesNoneOfUserAsStateAndCannotChangeIt() async throws {
        let service = try await TestService.standard()
        let alice = UUID()
        let bob = UUID()
        let _: Favorite = try await service.call(
            ContentState.favoritesPut, FavoritePutParams(userID: alice, itemID: "shared", nickname: .set("Alice's"), position: .set(1)))
        let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: alice, itemID: "shared"))
        let _: Unlike = try await service.call(ContentState.unlikesPut, ItemParams(userID: alice, itemID: "shared"))
        let aliceFeed: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: alice))

        // Reads as Bob, with Alice's item ids and even Alice's cursors.
        let favorites: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: bob))
        let byPosition: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: bob, order: .position))
        let read: MarksPage<ReadMark> = try await service.call(ContentState.readList, PageParams(userID: bob))
        let unlikes: MarksPage<Unlike> = try await service.call(ContentState.unlikesList, PageParams(userID: bob))
        let state: StateQueryResult = try await service.call(ContentState.stateQuery, StateQueryParams(userID: bob, itemIDs: ["shared"]))
        let changes: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: bob))
        #expect(favorites.items.isEmpty && byPosition.items.isEmpty && read.items.isEmpty && unlikes.items.isEmpty)
        #expect(state.items["shared"] == ItemFlags(favorited: false, read: false, unliked: false))
        #expect(changes.changes.isEmpty)

        // Writes as Bob on the same item id.
        let removed: RemovalResult = try await service.call(ContentState.favoritesRemove, ItemParams(userID: bob, itemID: "shared"))
        let unmarked: RemovalResult = try await service.call(ContentState.readUnmark, ItemParams(userID: bob, itemID: "shared"))
        let unUnliked: RemovalResult = try await service.call(ContentState.unlikesRemove, ItemParams(userID: bob, itemID: "shared"))
        #expect(!removed.changed && !unmarked.changed && !unUnliked.changed)
        let batch: ReadBatchResult = try await service.call(ContentState.readBatch, ReadBatchParams(userID: bob, itemIDs: ["shared"], read: false))
        #expect(batch.updated == 0)
        let toggled: FavoriteToggleResult = try await service.call(ContentState.favoritesToggle, ItemParams(userID: bob, itemID: "shared"))
        #expect(toggled.favorited, "Bob's toggle favorites Bob's own copy")
        let _: Favorite = try await service.call(
            ContentState.favoritesPut, FavoritePutParams(userID: bob, itemID: "shared", nickname: .set("Bob's"), position: .set(9)))
        let deleted: UserDeletionResult = try await service.call(ContentState.userDelete, UserParams(userID: bob))
        #expect(deleted.deleted == 1)

        // Alice's state is exactly as before.
        let aliceState: StateQueryResult = try await service.call(ContentState.stateQuery, StateQueryParams(userID: alice, itemIDs: ["shared"]))
        #expect(aliceState.items["shared"] == ItemFlags(favorited: true, read: true, unliked: true))
        let aliceFavorites: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: alice))
        #expect(aliceFavorites.items.map(\.nickname) == ["Alice's"])
        #expect(aliceFavorites.items.map(\.position) == [1])
        let aliceFeedAfter: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: alice))
        #expect(aliceFeedAfter == aliceFeed)
    }
}
