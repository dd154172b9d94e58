import ContentStateAPI
import ContentStateService
import Foundation
import Postgres
import Testing

/// `content.write_items`, the one statement every write runs: its lock, its version order and
/// its all-or-nothing favorites limit, checked against Postgres directly.
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
        let counter = try await service.postgres.query(
            "SELECT version, favorite_count FROM content.user_versions WHERE user_id = $1", [.uuid(user)])
        #expect(try counter.map { try $0.decode("version", as: Int.self) } == [1], "the version row is made again")
        #expect(try counter.map { try $0.decode("favorite_count", as: Int.self) } == [1])
    }

    @Test func aWriteThatWouldPassTheFavoritesLimitLeavesEveryItemAsItWas() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        let favorite = "SELECT * FROM content.write_items($1::uuid, $2::text[], 'favorite', true, 'n', false, NULL, $3)"
        await #expect {
            _ = try await service.postgres.query(favorite, [.uuid(user), .text("{w,x,y,z}"), .int(3)])
        } throws: { error in
            (error as? PostgresError)?.sqlState == "LK001"
        }
        let none = try await service.postgres.query("SELECT count(*) AS n FROM content.item_states WHERE user_id = $1", [.uuid(user)])
        #expect(try none[0].decode("n", as: Int.self) == 0)

        let written = try await service.postgres.query(favorite, [.uuid(user), .text("{w,x,w,y,z}"), .int(4)])
        #expect(try written.map { try $0.decode("changed", as: Bool.self) } == [true, true, false, true, true], "a repeat finds its item written")
        let counter = try await service.postgres.query(
            "SELECT version, favorite_count FROM content.user_versions WHERE user_id = $1", [.uuid(user)])
        #expect(try counter[0].decode("version", as: Int.self) == 4)
        #expect(try counter[0].decode("favorite_count", as: Int.self) == 4)
    }

    static let markRead = "SELECT * FROM content.write_items($1::uuid, $2::text[], 'mark_read', false, NULL, false, NULL, 10)"
}
