import ContentStateService
import ContentStateAPI
import Foundation
import Testing

/// `content.user.delete` removes everything of one user, and only that.
@Suite struct DeletionTests {
    @Test func deletingAUserRemovesAllStateTombstonesAndVersions() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let other = UUID()
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "f", nickname: .set("n")))
        let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "r"))
        let _: Unlike = try await service.call(ContentState.unlikesPut, ItemParams(userID: user, itemID: "u"))
        let _: FavoriteToggleResult = try await service.call(ContentState.favoritesToggle, ItemParams(userID: user, itemID: "tomb"))
        let _: FavoriteToggleResult = try await service.call(ContentState.favoritesToggle, ItemParams(userID: user, itemID: "tomb"))
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: other, itemID: "f"))

        let deleted: UserDeletionResult = try await service.call(ContentState.userDelete, UserParams(userID: user))
        #expect(deleted.deleted == 4, "three items with state and one tombstone")
        let again: UserDeletionResult = try await service.call(ContentState.userDelete, UserParams(userID: user))
        #expect(again.deleted == 0)

        let favorites: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: user))
        let read: MarksPage<ReadMark> = try await service.call(ContentState.readList, PageParams(userID: user))
        let unlikes: MarksPage<Unlike> = try await service.call(ContentState.unlikesList, PageParams(userID: user))
        let changes: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user))
        #expect(favorites.items.isEmpty && read.items.isEmpty && unlikes.items.isEmpty && changes.changes.isEmpty)
        let rows = try await service.postgres.query(
            "SELECT (SELECT count(*) FROM content.item_states WHERE user_id = $1) + (SELECT count(*) FROM content.user_versions WHERE user_id = $1) AS n",
            [.uuid(user)])
        #expect(try rows[0].decode("n", as: Int.self) == 0, "no row of the user is left")

        let otherFavorites: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: other))
        #expect(otherFavorites.items.map(\.itemID) == ["f"])
    }

    @Test func aDeletedUserStartsOverWithFreshLimits() async throws {
        let service = try await TestService.smallLimits()
        let user = UUID()
        for item in ["a", "b", "c"] {
            let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: item))
        }
        let _: UserDeletionResult = try await service.call(ContentState.userDelete, UserParams(userID: user))
        for item in ["d", "e", "f"] {
            let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: item))
        }
        let page: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: user))
        #expect(page.items.count == 3)
    }
}
