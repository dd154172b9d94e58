import ContentStateAPI
@testable import ContentStateService
import Foundation
import Postgres
import ServiceProtocol
import Testing

/// A page of favorites is written as JSON straight from its rows
/// (`FavoritesPage.rawJSON(rows:limit:order:)`): what it writes reads back as the favorites
/// those rows hold, read here cell by cell by name, and its cursors walk the whole list.
@Suite struct FavoritesPageJSONTests {
    static let nicknames = ChangesPageJSONTests.nicknames
    static let ids = ChangesPageJSONTests.ids

    @Test func pagesWrittenFromTheirRowsReadBackAsTheirFavoritesInBothOrders() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration())
        let user = UUID()
        for (index, id) in Self.ids.enumerated() {
            _ = try await store.write(
                user: user, items: [try ItemID(validating: id)],
                .favorite(nickname: .set(Self.nicknames[index]), position: .set(index == 2 ? nil : Int64(index) - 2)))
        }
        // Read, not favorited: not on the list.
        _ = try await store.write(user: user, items: [try ItemID(validating: "read only")], .markRead)

        for order in FavoritesOrder.allCases {
            let rows = try await store.read(.favorites(order, afterCursor: false), user: user, ["100"])
            let expected = try rows.map(Self.favorite(of:))
            #expect(expected.count == Self.ids.count)
            let whole = try FavoritesPage(try await store.favorites(user: user, order: order, limit: 100, after: nil))
            #expect(whole == FavoritesPage(items: expected, nextCursor: nil), "\(order)")

            // Two at a time, each page after the last one's cursor: the same favorites, in order.
            var walked: [Favorite] = []
            var cursor: PageCursor?
            let kind: PageCursor.Kind = order == .recent ? .favoritesRecent : .favoritesPosition
            for _ in 0..<Self.ids.count {
                let page = try FavoritesPage(try await store.favorites(user: user, order: order, limit: 2, after: cursor))
                walked += page.items
                guard let next = page.nextCursor else { break }
                #expect(page.items.count == 2)
                cursor = try PageCursor(decoding: next, as: kind)
            }
            #expect(walked == expected, "\(order), two at a time")
        }
        let none = try await store.favorites(user: UUID(), order: .recent, limit: 50, after: nil)
        #expect(String(decoding: none.utf8, as: UTF8.self) == #"{"items":[],"next_cursor":null}"#)
    }

    /// The favorite a row of `ContentStore.favoriteColumns` holds, read by column name.
    static func favorite(of row: PostgresRow) throws -> Favorite {
        Favorite(
            itemID: try row.decode("item_id", as: String.self), nickname: try row.decode("nickname", as: String?.self),
            position: try row.decode("position", as: Int64?.self),
            favoritedAt: Timestamp(milliseconds: try row.decode("favorited_at", as: PostgresMilliseconds.self).value))
    }
}

extension FavoritesPage {
    /// The page `json` holds, as a client reads it.
    init(_ json: RawJSON) throws {
        self = try JSONDecoder().decode(FavoritesPage.self, from: Data(json.utf8))
    }
}
