import ContentStateAPI
@testable import ContentStateService
import Foundation
import Postgres
import ServiceProtocol
import Testing

/// A page of the changes feed is written as JSON straight from its rows
/// (`ChangesPage.rawJSON(rows:limit:after:)`), without `Change` values in between: what it
/// writes reads back as the changes those rows hold, read here cell by cell by name.
@Suite struct ChangesPageJSONTests {
    /// Nicknames that need escaping (quotes, backslashes, control characters), non-ASCII text,
    /// a slash (written as it is), and none; ids with quotes, backslashes and non-ASCII text.
    static let nicknames: [String?] = [#"quote " backslash \ "#, "tab\tnewline\n\u{1}", "naïve ✓ 🦊", "/slash", nil]
    static let ids = [#"q"uote\id"#, "naïve ✓ 🦊", "/slash", "{braces},comma", "plain"]

    @Test func aPageWrittenFromItsRowsReadsBackAsTheirChanges() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration())
        let user = UUID()
        for (index, id) in Self.ids.enumerated() {
            let item = try ItemID(validating: id)
            _ = try await store.write(
                user: user, items: [item],
                .favorite(nickname: .set(Self.nicknames[index]), position: .set(index == 2 ? nil : Int64(index) - 2)))
            if index.isMultiple(of: 2) { _ = try await store.write(user: user, items: [item], .markRead) }
            if index == 3 { _ = try await store.write(user: user, items: [item], .unfavorite) }
        }
        _ = try await store.write(user: user, items: [try ItemID(validating: "unliked only")], .unlike)

        for (after, limit) in [(Int64(0), 100), (0, 3), (4, 2), (9, 100), (100, 100)] {
            let written = try ChangesPage(try await store.changes(user: user, after: after, limit: limit))
            let rows = try await store.read(.changes, user: user, [String(after), String(limit + 1)])
            let expected = try rows.prefix(limit).map(Self.change(of:))
            #expect(written.changes == expected, "after \(after), limit \(limit)")
            #expect(written.hasMore == (rows.count > limit))
            let last = try rows.prefix(limit).last.map { try $0.decode("version", as: Int64.self) } ?? after
            #expect(written.nextCursor == PageCursor(kind: .changes, key: last).encoded)
        }
        let everything = try ChangesPage(try await store.changes(user: user, after: 0, limit: 100))
        #expect(everything.changes.count == 6 && !everything.hasMore)
        #expect(everything.changes.map(\.nickname).filter { $0 != nil } == [Self.nicknames[0], Self.nicknames[1], Self.nicknames[2]])
        let emptyPage = try ChangesPage(try await store.changes(user: UUID(), after: 0, limit: 100))
        #expect(emptyPage == ChangesPage(changes: [], nextCursor: PageCursor(kind: .changes, key: 0).encoded, hasMore: false))
    }

    /// The change a row of `ContentStore.selectChanges` holds, read by column name.
    static func change(of row: PostgresRow) throws -> Change {
        let time = { (column: String) throws -> Timestamp? in
            try row.decode(column, as: PostgresMilliseconds?.self).map { Timestamp(milliseconds: $0.value) }
        }
        let favoritedAt = try time("favorited_at"), readAt = try time("read_at"), unlikedAt = try time("unliked_at")
        return Change(
            itemID: try row.decode("item_id", as: String.self), favorited: favoritedAt != nil,
            nickname: try row.decode("nickname", as: String?.self), position: try row.decode("position", as: Int64?.self),
            read: readAt != nil, unliked: unlikedAt != nil, updatedAt: try #require(try time("updated_at")),
            favoritedAt: favoritedAt, readAt: readAt, unlikedAt: unlikedAt)
    }
}

extension ChangesPage {
    /// The page `json` holds, as a client reads it.
    init(_ json: RawJSON) throws {
        self = try JSONDecoder().decode(ChangesPage.self, from: Data(json.utf8))
    }
}
