import ContentStateService
import ContentStateAPI
import Foundation
import Testing

/// `content.state.query` and the changes feed.
@Suite struct StateTests {
    @Test func stateQueryAnswersEveryIdIncludingUntouchedOnes() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "fav"))
        let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "read"))
        let _: Unlike = try await service.call(ContentState.unlikesPut, ItemParams(userID: user, itemID: "meh"))
        let _: FavoriteToggleResult = try await service.call(ContentState.favoritesToggle, ItemParams(userID: user, itemID: "fav"))
        let _: FavoriteToggleResult = try await service.call(ContentState.favoritesToggle, ItemParams(userID: user, itemID: "fav"))
        let result: StateQueryResult = try await service.call(
            ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: ["fav", "read", "meh", "unknown"]))
        #expect(result.items == [
            "fav": ItemFlags(favorited: true, read: false, unliked: false),
            "read": ItemFlags(favorited: false, read: true, unliked: false),
            "meh": ItemFlags(favorited: false, read: false, unliked: true),
            "unknown": ItemFlags(favorited: false, read: false, unliked: false),
        ])
        let empty: StateQueryResult = try await service.call(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: []))
        #expect(empty.items.isEmpty)
    }

    @Test func idsWithQuotesBackslashesAndBracesAreWrittenAndQueriedIntact() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let awkward = [#"q"uote"#, #"back\slash"#, "{braces},comma", "naïve ✓", "plain"]
        let _: ReadBatchResult = try await service.call(ContentState.readBatch, ReadBatchParams(userID: user, itemIDs: Array(awkward.prefix(4)), read: true))
        let result: StateQueryResult = try await service.call(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: awkward))
        #expect(result.items.filter(\.value.read).keys.sorted() == Array(awkward.prefix(4)).sorted())
        #expect(result.items["plain"]?.read == false)
    }

    @Test func stateQueryTakesMaxBatchIds() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let ids = (0..<service.configuration.maxBatch).map { "q-\($0)" }
        let _: ReadBatchResult = try await service.call(ContentState.readBatch, ReadBatchParams(userID: user, itemIDs: Array(ids.prefix(10)), read: true))
        let result: StateQueryResult = try await service.call(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: ids))
        #expect(result.items.count == ids.count)
        #expect(result.items.filter(\.value.read).count == 10)
        #expect(await service.errorCode(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: ids + ["one-more"])) == "bad_request")
    }

    @Test func changesSinceACursorHoldOnlyLaterChangesAndRemovalsAppearAsFalse() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let start: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user))
        #expect(start.changes.isEmpty && !start.hasMore)

        let _: Favorite = try await service.call(
            ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "a", nickname: .set("Nick"), position: .set(4)))
        let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "b"))
        let first: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user, since: start.nextCursor))
        #expect(first.changes.map(\.itemID) == ["a", "b"])
        #expect(first.changes[0].favorited && first.changes[0].nickname == "Nick" && first.changes[0].position == 4)
        #expect(first.changes[1].read && !first.changes[1].favorited)

        let idle: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user, since: first.nextCursor))
        #expect(idle.changes.isEmpty)
        #expect(idle.nextCursor == first.nextCursor, "with nothing new the cursor stays put")

        let _: RemovalResult = try await service.call(ContentState.favoritesRemove, ItemParams(userID: user, itemID: "a"))
        let removal: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user, since: first.nextCursor))
        #expect(removal.changes.count == 1)
        let change = try #require(removal.changes.first)
        #expect(change.itemID == "a")
        #expect(!change.favorited && change.nickname == nil && change.position == nil && change.favoritedAt == nil)
        #expect(change.updatedAt >= first.changes[0].updatedAt)

        let everything: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user))
        #expect(everything.changes.map(\.itemID) == ["b", "a"], "each item appears once, at its latest version")
    }

    @Test func changesPageWithHasMoreUntilTheFeedIsDrained() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let ids = (0..<25).map { "c-\($0)" }
        let _: ReadBatchResult = try await service.call(ContentState.readBatch, ReadBatchParams(userID: user, itemIDs: ids, read: true))
        var since: String?
        var collected: [String] = []
        var pages: [Bool] = []
        repeat {
            let page: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user, since: since, limit: 10))
            collected += page.changes.map(\.itemID)
            pages.append(page.hasMore)
            since = page.nextCursor
        } while pages.last == true
        #expect(pages == [true, true, false])
        #expect(collected == ids, "in version order, which is the batch's order")
    }

    @Test func changesResultHasTheWireShapeOfTheHTTPAPI() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "w"))
        let raw: JSONValue = try await service.call(ContentState.stateChanges.name, ChangesParams(userID: user))
        #expect(raw.keys == ["changes", "next_cursor", "has_more"])
        guard case .array(let changes)? = raw["changes"], let change = changes.first else {
            Issue.record("no changes array")
            return
        }
        #expect(change.keys.isSuperset(of: ["item_id", "favorited", "nickname", "position", "read", "unliked", "updated_at"]))
        #expect(change["nickname"] == .null)
        #expect(change["read"] == .bool(false))
    }
}
