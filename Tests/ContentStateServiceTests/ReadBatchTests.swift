import ContentStateAPI
@testable import ContentStateService
import Foundation
import Postgres
import TestSupport
import Testing

/// Reads of one kind that wait behind each other in the read line run as one statement over
/// all their users (`ReadStatement.batch`), and each caller gets exactly the rows it would get
/// alone.
@Suite struct ReadBatchTests {
    /// Runs `reads` queued in the read line behind held places of `kind`: they run together.
    private func queued<T: Sendable>(
        _ kind: ReadKind, on store: ContentStore, _ reads: [@Sendable () async throws -> T]
    ) async throws -> [Result<T, any Error>] {
        try await store.readLine.queued(behind: kind, holder: PendingRead(user: UUID(), parameters: []), answer: [], reads)
    }

    /// Three users: one with favorites (nicknames, positions, some without), read and unliked
    /// items and ids that need quoting in an array literal; one with a single favorite; one
    /// with nothing.
    private func users(_ service: TestService) async throws -> [UUID] {
        let (full, single, empty) = (UUID(), UUID(), UUID())
        let ids = ["plain", #"q"uote"#, #"back\slash"#, "{braces},comma", "naïve ✓", "sp ace", "z-last"]
        for (index, id) in ids.enumerated() {
            let _: Favorite = try await service.call(
                ContentState.favoritesPut,
                FavoritePutParams(userID: full, itemID: id, nickname: .set(index.isMultiple(of: 2) ? "n\(index)" : nil),
                                  position: .set(index < 4 ? Int64(10 - index) : nil)))
            if index.isMultiple(of: 3) {
                let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: full, itemID: id))
            }
        }
        let _: Unlike = try await service.call(ContentState.unlikesPut, ItemParams(userID: full, itemID: "other"))
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: single, itemID: "only"))
        return [full, single, empty]
    }

    @Test func pageReadsOfDifferentUsersThatWaitedTogetherEachGetTheirOwnPage() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration())
        let users = try await users(service)
        let (full, single, empty) = (users[0], users[1], users[2])

        let firstPages: [@Sendable () async throws -> FavoritesPage] = [
            { try FavoritesPage(try await store.favorites(user: full, order: .recent, limit: 3, after: nil)) },
            { try FavoritesPage(try await store.favorites(user: single, order: .recent, limit: 50, after: nil)) },
            { try FavoritesPage(try await store.favorites(user: empty, order: .recent, limit: 50, after: nil)) },
            { try FavoritesPage(try await store.favorites(user: full, order: .recent, limit: 50, after: nil)) },
        ]
        let together = try await queued(.favorites(.recent, afterCursor: false), on: store, firstPages).map { try $0.get() }
        for (read, page) in zip(firstPages, together) {
            #expect(try await read() == page, "the same page as the read alone")
        }
        #expect(together[0].items.count == 3 && together[0].nextCursor != nil)
        #expect(together[1].items.map(\.itemID) == ["only"] && together[2].items.isEmpty)
        #expect(together[3].items.count == 7 && together[3].nextCursor == nil)

        // Position order after a cursor: each read's own cursor and limit.
        let cursor = try PageCursor(decoding: try #require(try FavoritesPage(try await store.favorites(user: full, order: .position, limit: 2, after: nil)).nextCursor), as: .favoritesPosition)
        let farCursor = PageCursor(kind: .favoritesPosition, key: 9, itemID: "zzz")
        // A cursor's id travels inside an array literal: quotes, backslashes, braces and commas.
        let quotedCursor = PageCursor(kind: .favoritesPosition, key: 8, itemID: #"back\slash"#)
        let afterPages: [@Sendable () async throws -> FavoritesPage] = [
            { try FavoritesPage(try await store.favorites(user: full, order: .position, limit: 2, after: cursor)) },
            { try FavoritesPage(try await store.favorites(user: full, order: .position, limit: 50, after: farCursor)) },
            { try FavoritesPage(try await store.favorites(user: single, order: .position, limit: 50, after: farCursor)) },
            { try FavoritesPage(try await store.favorites(user: full, order: .position, limit: 1, after: quotedCursor)) },
            { try FavoritesPage(try await store.favorites(user: full, order: .position, limit: 50, after: PageCursor(kind: .favoritesPosition, key: 7, itemID: #"{"a",\b}"#))) },
        ]
        let after = try await queued(.favorites(.position, afterCursor: true), on: store, afterPages).map { try $0.get() }
        for (read, page) in zip(afterPages, after) {
            #expect(try await read() == page)
        }
        #expect(after[0].items.map(\.position) == [9, 10], "positions 7 and 8 came before the cursor")
        #expect(after[1].items.first?.position == 10 && after[1].items.count == 4, "10, then the three without a position")
        #expect(after[3].items.map(\.position) == [9], "back\\slash holds 8; q\"uote's 9 is next")
        #expect(after[4].items.first?.itemID == "{braces},comma", "at 7, {braces},comma sorts after {\"a\",\\b}")

        // The changes feed, from different versions, and the read marks.
        let changes: [@Sendable () async throws -> ChangesPage] = [
            { try ChangesPage(try await store.changes(user: full, after: 0, limit: 4)) },
            { try ChangesPage(try await store.changes(user: full, after: 4, limit: 100)) },
            { try ChangesPage(try await store.changes(user: single, after: 0, limit: 100)) },
            { try ChangesPage(try await store.changes(user: empty, after: 0, limit: 100)) },
        ]
        let feeds = try await queued(.changes, on: store, changes).map { try $0.get() }
        for (read, page) in zip(changes, feeds) {
            #expect(try await read() == page)
        }
        // Eight items took versions 1 to 11 (three read marks and the unlike after the favorites);
        // five of them last changed after version 4.
        #expect(feeds[0].changes.count == 4 && feeds[0].hasMore && feeds[1].changes.count == 5 && !feeds[1].hasMore)
        let marks: [@Sendable () async throws -> [String]] = [
            { try await store.marks(.read, user: full, limit: 50, after: nil).items.map(\.0) },
            { try await store.marks(.read, user: single, limit: 50, after: nil).items.map(\.0) },
        ]
        let read = try await queued(.marks(.read, afterCursor: false), on: store, marks).map { try $0.get() }
        #expect(Set(read[0]) == ["plain", "{braces},comma", "z-last"] && read[1].isEmpty)
    }

    /// A read whose statement the server refuses (a time `to_timestamp` cannot take; the API's
    /// cursor check keeps such a key from callers) fails alone: the reads it waited with run one
    /// by one and get their rows.
    @Test func aReadTheServerRefusesFailsAloneAndTheOthersGetTheirRows() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration())
        let users = try await users(service)
        let kind = ReadKind.favorites(.recent, afterCursor: true)
        let now = String(Int64(Date().timeIntervalSince1970 * 1000) + 60_000)
        let reads: [@Sendable () async throws -> [String]] = [
            { try await store.read(kind, user: users[0], ["51", now, "a"]).map { try $0.decode("item_id", as: String.self) } },
            { try await store.read(kind, user: users[0], ["51", String(Int64.max), "a"]).map { try $0.decode("item_id", as: String.self) } },
            { try await store.read(kind, user: users[1], ["51", now, "a"]).map { try $0.decode("item_id", as: String.self) } },
        ]
        let results = try await queued(kind, on: store, reads)
        #expect(try results[0].get().count == 7)
        #expect(try results[2].get() == ["only"])
        #expect(throws: PostgresError.self) { try results[1].get() }
        if case .failure(let error as PostgresError) = results[1] {
            #expect(error.sqlState == "22008", "timestamp out of range")
        }
    }

    /// A folded read's rows are put in its statement's order in the service: rows that come
    /// shuffled leave in exactly the order Postgres's `ORDER BY` gives them (ids compared byte
    /// by byte, as `COLLATE "C"`; times before and after 1970), and every read's statement
    /// names an order.
    @Test func rowsOfAFoldedReadAreInTheOrderOfItsStatement() async throws {
        let service = try await TestService.ownPool()
        let rows = """
            FROM (SELECT *, 'epoch'::timestamptz + at_ms * interval '1 millisecond' AS at
                  FROM (VALUES ('b', 5::bigint, 2::bigint), ('B', 5, 2), ('a', 5, 2), ('é', 5, 1), ('z', 5, 1), ('a', 7, 3),
                         ('', 5, 1), ('zz', -1, 9007199254740992), ('~', 7, 3), ('a b', 5, 2)) AS v(item_id, at_ms, sort_position)) r
            """
        let recent = ReadStatement(
            "SELECT 1", types: ["uuid"], rowOrder: [.integer("at_ms", descending: true), .text("item_id", descending: true)])
        let recentByTime = ReadStatement(
            "SELECT 1", types: ["uuid"], rowOrder: [.time("at", descending: true), .text("item_id", descending: true)])
        let position = ReadStatement("SELECT 1", types: ["uuid"], rowOrder: [.integer("sort_position"), .text("item_id")])
        for (statement, order) in [
            (recent, "at_ms DESC, item_id COLLATE \"C\" DESC"), (recentByTime, "at DESC, item_id COLLATE \"C\" DESC"),
            (position, "sort_position, item_id COLLATE \"C\""),
        ] {
            let expected = try await service.postgres.query("SELECT item_id \(rows) ORDER BY \(order)").map { try $0.decode("item_id", as: String.self) }
            for _ in 0..<5 {
                let shuffled = try await service.postgres.query("SELECT * \(rows) ORDER BY random()", results: .binary)
                #expect(try statement.inOrder(shuffled).map { try $0.decode("item_id", as: String.self) } == expected)
            }
            let ordered = try await service.postgres.query("SELECT * \(rows) ORDER BY \(order)", results: .binary)
            #expect(try statement.inOrder(ordered).map { try $0.decode("item_id", as: String.self) } == expected)
        }
        let kinds: [ReadKind] = [
            .favorites(.recent, afterCursor: false), .favorites(.recent, afterCursor: true), .favorites(.position, afterCursor: false),
            .favorites(.position, afterCursor: true), .marks(.read, afterCursor: false), .marks(.unliked, afterCursor: true), .changes,
        ]
        for kind in kinds {
            #expect(!kind.statement.rowOrder.isEmpty && !kind.statement.batch.contains("ORDER BY u.read_index"))
        }
    }
}
