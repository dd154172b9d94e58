import ContentStateAPI
import ContentStateService
import Foundation
import Testing

/// Invalid params map to the error catalogue before anything is read or written.
@Suite struct ValidationTests {
    @Test(arguments: ["", String(repeating: "x", count: 257), "tab\there", "new\nline", "nul\u{0}", "del\u{7F}", "c1\u{85}"])
    func badItemIDsAreBadRequest(itemID: String) async throws {
        let service = try await TestService.standard()
        let user = UUID()
        #expect(await service.errorCode("content.favorites.put", FavoritePutParams(userID: user, itemID: itemID)) == "bad_request")
        #expect(await service.errorCode("content.read.mark", ItemParams(userID: user, itemID: itemID)) == "bad_request")
        #expect(await service.errorCode("content.state.query", StateQueryParams(userID: user, itemIDs: ["ok", itemID])) == "bad_request")
        let feed: ChangesPage = try await service.call("content.state.changes", ChangesParams(userID: user))
        #expect(feed.changes.isEmpty, "nothing was written")
    }

    @Test func itemIDsOf256BytesAndAnyPrintableTextAreAccepted() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let longest = String(repeating: "é", count: 128)  // 256 bytes
        for itemID in [longest, "a", "with space/and\"quote\\back{brace},comma", "emoji 🍕", "NULL"] {
            let favorite: Favorite = try await service.call("content.favorites.put", FavoritePutParams(userID: user, itemID: itemID))
            #expect(favorite.itemID == itemID)
        }
        let state: StateQueryResult = try await service.call(
            "content.state.query", StateQueryParams(userID: user, itemIDs: [longest, "with space/and\"quote\\back{brace},comma", "NULL"]))
        #expect(state.items.values.allSatisfy { $0.favorited })
    }

    @Test func nicknamesOver100CharactersAndPositionsBeyond2To53AreBadRequest() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        #expect(await service.errorCode(
            "content.favorites.put", FavoritePutParams(userID: user, itemID: "n", nickname: .set(String(repeating: "ü", count: 101)))) == "bad_request")
        let hundred: Favorite = try await service.call(
            "content.favorites.put", FavoritePutParams(userID: user, itemID: "n", nickname: .set(String(repeating: "ü", count: 100))))
        #expect(hundred.nickname?.count == 100)
        #expect(await service.errorCode(
            "content.favorites.put", FavoritePutParams(userID: user, itemID: "p", position: .set(9_007_199_254_740_992))) == "bad_request")
        let p: JSONValue = ["user_id": .string(user.uuidString), "item_id": "p", "position": .number(1.5)]
        #expect(await service.errorCode("content.favorites.put", p) == "bad_request")
    }

    @Test(arguments: [0, -1, 201])
    func limitsOutside1To200AreBadRequest(limit: Int) async throws {
        let service = try await TestService.standard()
        let user = UUID()
        #expect(await service.errorCode("content.favorites.list", FavoritesListParams(userID: user, limit: limit)) == "bad_request")
        #expect(await service.errorCode("content.read.list", PageParams(userID: user, limit: limit)) == "bad_request")
        #expect(await service.errorCode("content.unlikes.list", PageParams(userID: user, limit: limit)) == "bad_request")
        #expect(await service.errorCode("content.state.changes", ChangesParams(userID: user, limit: limit)) == "bad_request")
    }

    @Test func malformedAndForeignCursorsAreBadRequest() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        for item in ["a", "b"] {
            let _: Favorite = try await service.call("content.favorites.put", FavoritePutParams(userID: user, itemID: item))
        }
        let recent: FavoritesPage = try await service.call("content.favorites.list", FavoritesListParams(userID: user, limit: 1))
        let cursor = try #require(recent.nextCursor)
        for garbage in ["", "not a cursor", "!!!!", "eyJrIjoiZnIifQ", String(repeating: "A", count: 5000)] {
            #expect(await service.errorCode("content.favorites.list", FavoritesListParams(userID: user, cursor: garbage)) == "bad_request")
            #expect(await service.errorCode("content.state.changes", ChangesParams(userID: user, since: garbage)) == "bad_request")
        }
        #expect(await service.errorCode(
            "content.favorites.list", FavoritesListParams(userID: user, order: .position, cursor: cursor)) == "bad_request")
        #expect(await service.errorCode("content.read.list", PageParams(userID: user, cursor: cursor)) == "bad_request")
        #expect(await service.errorCode("content.state.changes", ChangesParams(userID: user, since: cursor)) == "bad_request")
    }

    @Test func batchesOverMaxBatchAreBadRequest() async throws {
        let service = try await TestService.smallLimits()
        let user = UUID()
        let six = (1...6).map { "item-\($0)" }
        #expect(await service.errorCode("content.state.query", StateQueryParams(userID: user, itemIDs: six)) == "bad_request")
        #expect(await service.errorCode("content.read.batch", ReadBatchParams(userID: user, itemIDs: six, read: true)) == "bad_request")
        let five: StateQueryResult = try await service.call("content.state.query", StateQueryParams(userID: user, itemIDs: Array(six.prefix(5))))
        #expect(five.items.count == 5)
    }

    @Test func malformedUserIDsUnknownOrdersAndMissingFieldsAreBadRequest() async throws {
        let service = try await TestService.standard()
        let user = UUID().uuidString
        #expect(await service.errorCode("content.favorites.put", ["user_id": "not-a-uuid", "item_id": "a"] as JSONValue) == "bad_request")
        #expect(await service.errorCode("content.favorites.put", ["item_id": "a"] as JSONValue) == "bad_request")
        #expect(await service.errorCode("content.favorites.list", ["user_id": .string(user), "order": "alphabetical"] as JSONValue) == "bad_request")
        #expect(await service.errorCode("content.read.batch", ["user_id": .string(user), "item_ids": ["a"]] as JSONValue) == "bad_request")
    }
}
