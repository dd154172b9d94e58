import ContentStateService
import ContentStateAPI
import Foundation
import Testing

/// `content.favorites.put`, `.remove`, `.toggle` and `.list` for one user.
@Suite struct FavoritesTests {
    @Test func putReturnsTheFavoriteAndRepeatingItChangesNothing() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let first: Favorite = try await service.call(
            ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "article-1", nickname: .set("Best"), position: .set(3)))
        #expect(first.itemID == "article-1")
        #expect(first.nickname == "Best")
        #expect(first.position == 3)

        let again: Favorite = try await service.call(
            ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "article-1", nickname: .set("Best"), position: .set(3)))
        #expect(again == first)

        let feed: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user))
        #expect(feed.changes.count == 1, "a repeated put with the same values takes no new version")
        let afterFirst: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user, since: feed.nextCursor))
        #expect(afterFirst.changes.isEmpty)
    }

    @Test func putWithoutNicknameKeepsItAndNullClearsIt() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let created: Favorite = try await service.call(
            ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "a", nickname: .set("Mine"), position: .set(7)))
        let kept: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "a"))
        #expect(kept.nickname == "Mine")
        #expect(kept.position == 7)
        #expect(kept.favoritedAt == created.favoritedAt, "re-favoriting keeps the first favorited_at")

        let cleared: Favorite = try await service.call(
            ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "a", nickname: .set(nil), position: .set(nil)))
        #expect(cleared.nickname == nil)
        #expect(cleared.position == nil)
        #expect(cleared.favoritedAt == created.favoritedAt)
    }

    @Test func putResultHasEverySnakeCaseKeyAndAnRFC3339Time() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        // Raw JSON both ways: the wire shape itself.
        let raw: JSONValue = try await service.call(ContentState.favoritesPut.name, ["user_id": .string(user.uuidString.lowercased()), "item_id": "x"] as JSONValue)
        #expect(raw.keys == ["item_id", "nickname", "position", "favorited_at"])
        #expect(raw["nickname"] == .null)
        #expect(raw["position"] == .null)
        guard case .string(let time)? = raw["favorited_at"] else {
            Issue.record("favorited_at is not a string: \(String(describing: raw["favorited_at"]))")
            return
        }
        #expect(time.count == 24 && time.hasSuffix("Z") && time.contains("T"), "\(time)")
        #expect(Timestamp(rfc3339: time) != nil)
    }

    @Test func removeIsIdempotentAndSaysWhetherItRemovedSomething() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "gone"))
        let first: RemovalResult = try await service.call(ContentState.favoritesRemove, ItemParams(userID: user, itemID: "gone"))
        let second: RemovalResult = try await service.call(ContentState.favoritesRemove, ItemParams(userID: user, itemID: "gone"))
        let never: RemovalResult = try await service.call(ContentState.favoritesRemove, ItemParams(userID: user, itemID: "never-there"))
        #expect(first.changed)
        #expect(!second.changed)
        #expect(!never.changed)
        let page: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: user))
        #expect(page.items.isEmpty)
    }

    @Test func removingAFavoriteDropsItsNicknameAndPosition() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let _: Favorite = try await service.call(
            ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "n", nickname: .set("Old"), position: .set(1)))
        let _: RemovalResult = try await service.call(ContentState.favoritesRemove, ItemParams(userID: user, itemID: "n"))
        let again: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "n"))
        #expect(again.nickname == nil)
        #expect(again.position == nil)
    }

    @Test func toggleFlipsTheFavoriteEachTime() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        var seen: [Bool] = []
        for _ in 0..<3 {
            let result: FavoriteToggleResult = try await service.call(ContentState.favoritesToggle, ItemParams(userID: user, itemID: "t"))
            #expect(result.itemID == "t")
            seen.append(result.favorited)
        }
        #expect(seen == [true, false, true])
        let state: StateQueryResult = try await service.call(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: ["t"]))
        #expect(state.items["t"]?.favorited == true)
    }

    @Test func favoritesBeyondTheLimitAreConflictButRepeatsAndRemovalsStillWork() async throws {
        let service = try await TestService.smallLimits()
        let user = UUID()
        for item in ["a", "b", "c"] {
            let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: item))
        }
        #expect(await service.errorCode(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "d")) == "conflict")
        #expect(await service.errorCode(ContentState.favoritesToggle, ItemParams(userID: user, itemID: "d")) == "conflict")
        // Changing an existing favorite is not a new one.
        let renamed: Favorite = try await service.call(
            ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "a", nickname: .set("renamed")))
        #expect(renamed.nickname == "renamed")
        let _: RemovalResult = try await service.call(ContentState.favoritesRemove, ItemParams(userID: user, itemID: "b"))
        let added: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "d"))
        #expect(added.itemID == "d")
        let page: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: user))
        #expect(Set(page.items.map(\.itemID)) == ["a", "c", "d"])
    }

    @Test func listInRecentOrderPutsTheLatestFirst() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        for item in ["first", "second", "third"] {
            let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: item))
            try await Task.sleep(for: .milliseconds(3))
        }
        let page: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: user, order: .recent))
        #expect(page.items.map(\.itemID) == ["third", "second", "first"])
        #expect(page.nextCursor == nil)
    }

    @Test func listInPositionOrderPutsFavoritesWithoutPositionLast() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let positions: [(String, Int64?)] = [("c", 2), ("none-b", nil), ("a", -5), ("b", 2), ("none-a", nil), ("d", 100)]
        for (item, position) in positions {
            let _: Favorite = try await service.call(
                ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: item, position: .set(position)))
        }
        let page: FavoritesPage = try await service.call(
            ContentState.favoritesList, FavoritesListParams(userID: user, order: .position, limit: 200))
        #expect(page.items.map(\.itemID) == ["a", "b", "c", "d", "none-a", "none-b"])
    }
}
