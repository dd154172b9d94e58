import ContentStateAPI
import ContentStateService
import Foundation
import Testing

/// `content.user.counts`: the current favorites, read marks and unlikes of one user.
@Suite struct CountsTests {
    @Test func countsCurrentMarksOfTheUserOnlyAndNotTombstones() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let other = UUID()
        let empty: UserContentCounts = try await service.call(ContentState.userCounts, UserParams(userID: user))
        #expect(empty == UserContentCounts(favorites: 0, read: 0, unlikes: 0))

        for item in ["a", "b"] {
            let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: item))
        }
        let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "a"))
        let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "c"))
        let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "d"))
        let _: Unlike = try await service.call(ContentState.unlikesPut, ItemParams(userID: user, itemID: "e"))
        // A favorite removed again leaves a tombstone, which counts for nothing.
        let _: RemovalResult = try await service.call(ContentState.favoritesRemove, ItemParams(userID: user, itemID: "b"))
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: other, itemID: "x"))

        let counts: UserContentCounts = try await service.call(ContentState.userCounts, UserParams(userID: user))
        #expect(counts == UserContentCounts(favorites: 1, read: 3, unlikes: 1))
        let others: UserContentCounts = try await service.call(ContentState.userCounts, UserParams(userID: other))
        #expect(others == UserContentCounts(favorites: 1, read: 0, unlikes: 0))
    }
}
