import ContentStateAPI
import ContentStateService
import Foundation
import Postgres
import Testing

/// `content.write_batch`, the statement every write runs: its lock, its version order and its
/// all-or-nothing favorites limit, checked against Postgres directly.
@Suite struct WriteFunctionTests {
    @Test func aWriterWaitsForTheUsersLockAndTakesTheVersionAfterTheHolders() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "a"))
        let waiter = try await service.postgres.withTransaction { connection in
            // Hold the user's lock the way a writer does, and write "b" under it.
            try await connection.holdWriteLock(of: user)
            let b = try await connection.query(Self.markRead, [.uuid(user), .text("{b}")])
            #expect(try b[0].decode("changed", as: Bool.self))
            let waiter = Task {
                let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: user, itemID: "c"))
            }
            // Wait (without a time limit of our own) until the RPC's statement waits for this transaction.
            try await connection.untilABackendWaits()
            let polled: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user))
            #expect(polled.changes.map(\.itemID) == ["a"], "neither the uncommitted write nor the waiting one is visible")
            return waiter
        }
        try await waiter.value
        let rows = try await service.postgres.query(
            "SELECT item_id, version FROM content.item_states WHERE user_id = $1 ORDER BY version", [.uuid(user)])
        #expect(try rows.map { try $0.decode("item_id", as: String.self) } == ["a", "b", "c"])
        #expect(try rows.map { try $0.decode("version", as: Int.self) } == [1, 2, 3])
    }

    @Test func aWriterWaitingOnTheAccountsDeletionStartsTheUserOver() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        for item in ["a", "b"] {
            let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: item))
        }
        let waiter = try await service.postgres.withTransaction { connection in
            // The account's deletion as ContentStore.deleteAll runs it: the version row first.
            try await connection.execute("DELETE FROM content.user_versions WHERE user_id = $1", [.uuid(user)])
            try await connection.execute("DELETE FROM content.item_states WHERE user_id = $1", [.uuid(user)])
            let waiter = Task {
                let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "c"))
            }
            try await connection.untilABackendWaits()
            return waiter
        }
        try await waiter.value
        let rows = try await service.postgres.query(
            "SELECT item_id, version FROM content.item_states WHERE user_id = $1 ORDER BY version", [.uuid(user)])
        #expect(try rows.map { try $0.decode("item_id", as: String.self) } == ["c"], "the deleted items stay deleted")
        #expect(try rows.map { try $0.decode("version", as: Int.self) } == [1])
        let counter = try #require(try await service.versionRow(of: user), "the version row is made again")
        #expect(counter.version == 1)
        #expect(counter.favoriteCount == 1)
    }

    @Test func aWriteThatWouldPassTheFavoritesLimitLeavesEveryItemAsItWas() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let favorite = """
            SELECT * FROM content.write_batch($1::uuid, ARRAY[cardinality($2::text[])], $2::text[], '{favorite}', '{t}', '{n}',
                '{f}', '{NULL}', $3)
            """
        await #expect {
            _ = try await service.postgres.query(favorite, [.uuid(user), .text("{w,x,y,z}"), .int(3)])
        } throws: { error in
            (error as? PostgresError)?.sqlState == "LK001"
        }
        let none = try await service.postgres.query("SELECT count(*) AS n FROM content.item_states WHERE user_id = $1", [.uuid(user)])
        #expect(try none[0].decode("n", as: Int.self) == 0)

        let written = try await service.postgres.query(favorite, [.uuid(user), .text("{w,x,w,y,z}"), .int(4)])
        #expect(try written.map { try $0.decode("changed", as: Bool.self) } == [true, true, false, true, true], "a repeat finds its item written")
        let counter = try #require(try await service.versionRow(of: user))
        #expect(counter.version == 4)
        #expect(counter.favoriteCount == 4)
    }

    @Test func aBatchAppliesItsWritesInOrderEachAsItWouldAlone() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        // 1: favorite a, b with a nickname; 2: toggle a (off) and c (on); 3: mark a and b read;
        // 4: favorite b again with the same nickname (changes nothing); 5: toggle c twice (off, on).
        let rows = try await service.postgres.query(
            Self.batch,
            [
                .uuid(user), .text("{2,2,2,1,2}"), .text("{a,b,a,c,a,b,b,c,c}"),
                .text("{favorite,toggle_favorite,mark_read,favorite,toggle_favorite}"), .text("{t,f,f,t,f}"),
                .text("{n,NULL,NULL,n,NULL}"), .text("{f,f,f,f,f}"), .text("{NULL,NULL,NULL,NULL,NULL}"), .int(10),
            ])
        #expect(try rows.map { try $0.decode("write_index", as: Int.self) } == [1, 1, 2, 2, 3, 3, 4, 5, 5])
        #expect(try rows.map { try $0.decode("item_id", as: String.self) } == ["a", "b", "a", "c", "a", "b", "b", "c", "c"])
        #expect(try rows.map { try $0.decode("changed", as: Bool.self) } == [true, true, true, true, true, true, false, true, true])
        #expect(try rows.map { try $0.decode("favorited_ms", as: Int64?.self) != nil } == [true, true, false, true, false, true, true, false, true])
        #expect(try rows[6].decode("nickname", as: String?.self) == "n")
        let written = try await service.postgres.query(
            "SELECT item_id, version, (favorited_at IS NOT NULL) AS favorite, (read_at IS NOT NULL) AS read FROM content.item_states WHERE user_id = $1 ORDER BY version",
            [.uuid(user)])
        // Each change took the next version; the items keep their last.
        #expect(try written.map { try $0.decode("item_id", as: String.self) } == ["a", "b", "c"])
        #expect(try written.map { try $0.decode("version", as: Int.self) } == [5, 6, 8])
        #expect(try written.map { try $0.decode("favorite", as: Bool.self) } == [false, true, true])
        #expect(try written.map { try $0.decode("read", as: Bool.self) } == [true, true, false])
        let counter = try #require(try await service.versionRow(of: user))
        #expect(counter.version == 8)
        #expect(counter.favoriteCount == 2)
    }

    @Test func aBatchWithAWriteThatWouldPassTheFavoritesLimitChangesNothing() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let arguments: [PostgresValue] = [
            .uuid(user), .text("{1,2,1}"), .text("{r,x,y,z}"), .text("{mark_read,favorite,favorite}"),
            .text("{f,f,f}"), .text("{NULL,NULL,NULL}"), .text("{f,f,f}"), .text("{NULL,NULL,NULL}"), .int(2),
        ]
        await #expect {
            _ = try await service.postgres.query(Self.batch, arguments)
        } throws: { error in
            (error as? PostgresError)?.sqlState == "LK001"
        }
        let none = try await service.postgres.query("SELECT count(*) AS n FROM content.item_states WHERE user_id = $1", [.uuid(user)])
        #expect(try none[0].decode("n", as: Int.self) == 0, "not even the write before it stays")
    }

    @Test func timesAreReadToTheExactMillisecond() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        // The first and last millisecond of a second, 1970's first, and one of the year 2254.
        let times: [Int64] = [1_795_661_410_000, 1_795_661_410_999, 1, 9_000_000_000_123]
        for (index, ms) in times.enumerated() {
            try await service.postgres.execute(
                """
                INSERT INTO content.item_states (user_id, item_id, favorited_at, read_at, unliked_at, updated_at, version)
                VALUES ($1, $2, to_timestamp($3::bigint / 1000.0), to_timestamp($3::bigint / 1000.0),
                    to_timestamp($3::bigint / 1000.0), to_timestamp($3::bigint / 1000.0), $4)
                """,
                [.uuid(user), .text("t\(index)"), .int(Int(ms)), .int(index + 1)])
        }
        let page: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user))
        #expect(page.changes.map(\.updatedAt.milliseconds) == times)
        #expect(page.changes.map { $0.favoritedAt?.milliseconds } == times)
        #expect(page.changes.map { $0.readAt?.milliseconds } == times)
        #expect(page.changes.map { $0.unlikedAt?.milliseconds } == times)
        let favorites: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: user))
        #expect(Set(favorites.items.map(\.favoritedAt.milliseconds)) == Set(times))
        // A write's own rows (`write_batch`): favoriting a favorite keeps its time.
        for (index, ms) in times.enumerated() {
            let kept: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "t\(index)"))
            #expect(kept.favoritedAt.milliseconds == ms)
        }
    }

    static let batch = """
        SELECT * FROM content.write_batch($1::uuid, $2::integer[], $3::text[], $4::text[], $5::boolean[], $6::text[],
            $7::boolean[], $8::bigint[], $9::integer)
        """

    static let markRead = """
        SELECT * FROM content.write_batch($1::uuid, ARRAY[cardinality($2::text[])], $2::text[], '{mark_read}', '{f}', '{NULL}',
            '{f}', '{NULL}', 10)
        """
}
