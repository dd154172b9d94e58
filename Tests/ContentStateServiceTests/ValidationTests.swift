import ContentStateAPI
import Foundation
import Testing

@testable import ContentStateService

/// Invalid params map to the error catalogue before anything is read or written.
@Suite struct ValidationTests {
    @Test(arguments: ["", String(repeating: "x", count: 257), "tab\there", "new\nline", "nul\u{0}", "del\u{7F}", "c1\u{85}"])
    func badItemIDsAreBadRequest(itemID: String) async throws {
        let service = try await TestService.standard()
        let user = UUID()
        #expect(await service.errorCode(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: itemID)) == "bad_request")
        #expect(await service.errorCode(ContentState.readMark, ItemParams(userID: user, itemID: itemID)) == "bad_request")
        #expect(await service.errorCode(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: ["ok", itemID])) == "bad_request")
        let feed: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user))
        #expect(feed.changes.isEmpty, "nothing was written")
    }

    @Test func itemIDsOf256BytesAndAnyPrintableTextAreAccepted() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let longest = String(repeating: "é", count: 128)  // 256 bytes
        for itemID in [longest, "a", "with space/and\"quote\\back{brace},comma", "emoji 🍕", "NULL"] {
            let favorite: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: itemID))
            #expect(favorite.itemID == itemID)
        }
        let state: StateQueryResult = try await service.call(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: [longest, "with space/and\"quote\\back{brace},comma", "NULL"]))
        #expect(state.items.values.allSatisfy { $0.favorited })
    }

    @Test func nicknamesOver100CharactersAndPositionsBeyond2To53AreBadRequest() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        #expect(await service.errorCode(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "n", nickname: .set(String(repeating: "ü", count: 101)))) == "bad_request")
        let hundred: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "n", nickname: .set(String(repeating: "ü", count: 100))))
        #expect(hundred.nickname?.count == 100)
        #expect(await service.errorCode(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "p", position: .set(9_007_199_254_740_992))) == "bad_request")
        let p: JSONValue = ["user_id": .string(user.uuidString), "item_id": "p", "position": .number(1.5)]
        #expect(await service.errorCode(ContentState.favoritesPut.name, p) == "bad_request")
    }

    @Test(arguments: [0, -1, 201])
    func limitsOutside1To200AreBadRequest(limit: Int) async throws {
        let service = try await TestService.standard()
        let user = UUID()
        #expect(await service.errorCode(ContentState.favoritesList, FavoritesListParams(userID: user, limit: limit)) == "bad_request")
        #expect(await service.errorCode(ContentState.readList, PageParams(userID: user, limit: limit)) == "bad_request")
        #expect(await service.errorCode(ContentState.unlikesList, PageParams(userID: user, limit: limit)) == "bad_request")
        #expect(await service.errorCode(ContentState.stateChanges, ChangesParams(userID: user, limit: limit)) == "bad_request")
    }

    @Test func malformedAndForeignCursorsAreBadRequest() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        for item in ["a", "b"] {
            let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: item))
        }
        let recent: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: user, limit: 1))
        let cursor = try #require(recent.nextCursor)
        for garbage in ["", "not a cursor", "!!!!", "eyJrIjoiZnIifQ", String(repeating: "A", count: 5000)] {
            #expect(await service.errorCode(ContentState.favoritesList, FavoritesListParams(userID: user, cursor: garbage)) == "bad_request")
            #expect(await service.errorCode(ContentState.stateChanges, ChangesParams(userID: user, since: garbage)) == "bad_request")
        }
        #expect(await service.errorCode(ContentState.favoritesList, FavoritesListParams(userID: user, order: .position, cursor: cursor)) == "bad_request")
        #expect(await service.errorCode(ContentState.readList, PageParams(userID: user, cursor: cursor)) == "bad_request")
        #expect(await service.errorCode(ContentState.stateChanges, ChangesParams(userID: user, since: cursor)) == "bad_request")
    }

    /// Cursors the service never wrote but that decode: a time far outside what Postgres can
    /// hold, and an item id with NUL. Each is `bad_request`, as any other bad cursor, not a
    /// failed statement (`internal`); the first and last millisecond of years 1 to 9999 pass.
    @Test func cursorsNamingTimesOrIdsNoStatementCanTakeAreBadRequest() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        for item in ["a", "b"] {
            let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: item))
            let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: item))
        }
        for key in [Int64.max, Int64.min, PageCursor.timeKeys.upperBound + 1, PageCursor.timeKeys.lowerBound - 1] {
            let recent = PageCursor(kind: .favoritesRecent, key: key, itemID: "a").encoded
            #expect(await service.errorCode(ContentState.favoritesList, FavoritesListParams(userID: user, cursor: recent)) == "bad_request")
            let read = PageCursor(kind: .read, key: key, itemID: "a").encoded
            #expect(await service.errorCode(ContentState.readList, PageParams(userID: user, cursor: read)) == "bad_request")
        }
        let withNUL = PageCursor(kind: .favoritesPosition, key: 1, itemID: "a\u{0}b").encoded
        #expect(await service.errorCode(ContentState.favoritesList, FavoritesListParams(userID: user, order: .position, cursor: withNUL)) == "bad_request")
        for key in [PageCursor.timeKeys.lowerBound, PageCursor.timeKeys.upperBound] {
            let page: FavoritesPage = try await service.call(
                ContentState.favoritesList,
                FavoritesListParams(userID: user, cursor: PageCursor(kind: .favoritesRecent, key: key, itemID: "a").encoded))
            #expect(page.items.map(\.itemID) == (key > 0 ? ["b", "a"] : []))
        }
        let positions: FavoritesPage = try await service.call(
            ContentState.favoritesList,
            FavoritesListParams(userID: user, order: .position, cursor: PageCursor(kind: .favoritesPosition, key: Int64.min, itemID: "a").encoded))
        #expect(positions.items.count == 2)
    }

    @Test func batchesOverMaxBatchAreBadRequest() async throws {
        let service = try await TestService.smallLimits()
        let user = UUID()
        let six = (1...6).map { "item-\($0)" }
        #expect(await service.errorCode(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: six)) == "bad_request")
        #expect(await service.errorCode(ContentState.readBatch, ReadBatchParams(userID: user, itemIDs: six, read: true)) == "bad_request")
        let five: StateQueryResult = try await service.call(ContentState.stateQuery, StateQueryParams(userID: user, itemIDs: Array(six.prefix(5))))
        #expect(five.items.count == 5)
    }

    @Test func malformedUserIDsUnknownOrdersAndMissingFieldsAreBadRequest() async throws {
        let service = try await TestService.standard()
        let user = UUID().uuidString
        #expect(await service.errorCode(ContentState.favoritesPut.name, ["user_id": "not-a-uuid", "item_id": "a"] as JSONValue) == "bad_request")
        #expect(await service.errorCode(ContentState.favoritesPut.name, ["item_id": "a"] as JSONValue) == "bad_request")
        #expect(await service.errorCode(ContentState.favoritesList.name, ["user_id": .string(user), "order": "alphabetical"] as JSONValue) == "bad_request")
        #expect(await service.errorCode(ContentState.readBatch.name, ["user_id": .string(user), "item_ids": ["a"]] as JSONValue) == "bad_request")
    }
}
