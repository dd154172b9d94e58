import ContentStateAPI
@testable import ContentStateService
import Foundation
import Postgres
import TestSupport
import Testing

/// A user's writes that wait behind each other in the write line go to Postgres as one
/// statement (`content.write_batch`), and each caller still gets its own answer.
@Suite struct WriteBatchTests {
    /// The writes of `writes` for `user`, each started once the previous one waits in the line
    /// behind the writes that hold the line's places while the user's lock is held elsewhere;
    /// returns each write's result once the lock is let go. The user's first write (version 1)
    /// makes the lock's row.
    private func queued(
        _ writes: [PendingWrite], of user: UUID, on store: ContentStore, service: TestService
    ) async throws -> [Result<WriteOutcome, any Error>] {
        _ = try await store.write(user: user, items: [try ItemID(validating: "first")], .markRead)
        let tasks = try await service.postgres.withTransaction { connection in
            try await connection.holdWriteLock(of: user)
            var holders: [Task<WriteOutcome, any Error>] = []
            for index in 0..<store.writeLine.statementsAtOnce {
                holders.append(Task { try await store.write(user: user, items: [try ItemID(validating: "held-\(index)")], .markRead) })
                while store.writeLine.calls(of: user).running < index + 1 { await Task.yield() }
            }
            var tasks: [Task<WriteOutcome, any Error>] = []
            for (index, write) in writes.enumerated() {
                tasks.append(Task { try await store.write(user: user, items: write.items, write.transition) })
                while store.writeLine.calls(of: user).waiting < index + 1 { await Task.yield() }
            }
            return holders + tasks
        }
        var results: [Result<WriteOutcome, any Error>] = []
        for task in tasks { results.append(await task.result) }
        return Array(results.dropFirst(store.writeLine.statementsAtOnce))
    }

    private func ids(_ texts: String...) throws -> [ItemID] { try texts.map { try ItemID(validating: $0) } }

    /// The transaction that wrote each item of `user` (rows of one statement share it).
    private func writers(of user: UUID, _ service: TestService) async throws -> [String: String] {
        let rows = try await service.postgres.query(
            "SELECT item_id, xmin::text AS tx FROM content.item_states WHERE user_id = $1", [.uuid(user)])
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode("item_id", as: String.self), try $0.decode("tx", as: String.self)) })
    }

    @Test func writesThatWaitedTogetherRunAsOneStatementAndEachGetsItsAnswer() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration(maxFavoritesPerUser: 3))
        let user = UUID()
        let results = try await queued(
            [
                PendingWrite(items: try ids("a"), transition: .favorite(nickname: .set("first"), position: .set(7))),
                PendingWrite(items: try ids("b", "c"), transition: .favorite(nickname: .keep, position: .keep)),
                PendingWrite(items: try ids("a"), transition: .toggleFavorite),
                PendingWrite(items: try ids("b"), transition: .favorite(nickname: .keep, position: .keep)),
                PendingWrite(items: try ids("a", "d"), transition: .markRead),
            ], of: user, on: store, service: service)
        let outcomes = try results.map { try $0.get() }
        let a = try ItemID(validating: "a"), b = try ItemID(validating: "b")
        #expect(outcomes[0].states[a]?.nickname == "first" && outcomes[0].states[a]?.position == 7)
        #expect(outcomes[0].changed == 1)
        #expect(outcomes[1].changed == 2)
        #expect(outcomes[2].states[a]?.favoritedAt == nil, "the toggle saw the favorite of the write before it")
        #expect(outcomes[3].changed == 0 && outcomes[3].states[b]?.favoritedAt != nil, "favoriting a favorite changes nothing")
        #expect(outcomes[4].changed == 2 && outcomes[4].states[a]?.readAt != nil)

        let writers = try await writers(of: user, service)
        let batch = Set(["a", "b", "c", "d"].map { writers[$0] })
        #expect(batch.count == 1, "the five writes that waited together were one statement")
        let rows = try await service.postgres.query(
            "SELECT item_id, version FROM content.item_states WHERE user_id = $1 AND item_id = ANY('{a,b,c,d}') ORDER BY version",
            [.uuid(user)])
        // The statement's changes took consecutive versions in the order of its writes: a, b, c,
        // a (toggle), a and d (read). Postgres may let it take the lock before some of the held
        // writes, so the versions are counted from b's.
        #expect(try rows.map { try $0.decode("item_id", as: String.self) } == ["b", "c", "a", "d"])
        let versions = try rows.map { try $0.decode("version", as: Int.self) }
        #expect(versions.map { $0 - versions[0] } == [0, 1, 3, 4])
        let counter = try #require(try await service.versionRow(of: user))
        // The first write, one per held place, and the statement's six changes.
        #expect(counter.version == 1 + store.writeLine.statementsAtOnce + 6)
        #expect(counter.favoriteCount == 2)
    }

    @Test func aWriteThatWouldPassTheFavoritesLimitIsRefusedAloneAndTheOthersStay() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration(maxFavoritesPerUser: 3))
        let user = UUID()
        let results = try await queued(
            [
                PendingWrite(items: try ids("a", "b"), transition: .favorite(nickname: .keep, position: .keep)),
                PendingWrite(items: try ids("c", "d"), transition: .favorite(nickname: .keep, position: .keep)),
                PendingWrite(items: try ids("c"), transition: .toggleFavorite),
                PendingWrite(items: try ids("a"), transition: .markRead),
            ], of: user, on: store, service: service)
        #expect(throws: ContentStateError.favoritesLimitReached(maximum: 3)) { try results[1].get() }
        #expect(try results[0].get().changed == 2)
        #expect(try results[2].get().changed == 1, "the write after the refused one saw it undone")
        #expect(try results[3].get().changed == 1)
        let writers = try await writers(of: user, service)
        #expect(writers["d"] == nil)
        #expect(Set(["a", "c"].map { writers[$0] }).count == 2, "after the refusal, each write ran on its own")
        #expect(try #require(try await service.versionRow(of: user)).favoriteCount == 3)
    }

    /// `writes` (each of its own user, in order), each started once the one before waits in
    /// the cross-user line behind calls that hold all its places; then the holders go, and the
    /// writes that waited run together as one `content.write_entries` statement.
    private func queuedAcrossUsers(
        _ writes: [(UUID, PendingWrite)], on store: ContentStore
    ) async throws -> [Result<WriteOutcome, any Error>] {
        let results = try await store.usersWriteLine.queued(
            behind: .all, holder: UserWrites(user: UUID(), writes: []), answer: [],
            writes.map { user, write in { try await store.write(user: user, items: write.items, write.transition) } })
        #expect(store.writeLine.busyKeys == 0)
        return results
    }

    @Test func writesOfDifferentUsersThatWaitedTogetherRunAsOneStatementEachUnderItsUsersLock() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration(maxFavoritesPerUser: 3))
        let (known, other, new) = (UUID(), UUID(), UUID())
        _ = try await store.write(user: known, items: try ids("first"), .favorite(nickname: .keep, position: .keep))
        _ = try await store.write(user: other, items: try ids("first"), .markRead)
        // Two calls of `known` (its line lets two through), one of `other`, the first write of `new`.
        let results = try await queuedAcrossUsers(
            [
                (known, PendingWrite(items: try ids("a", "b"), transition: .favorite(nickname: .set("n"), position: .keep))),
                (other, PendingWrite(items: try ids("a"), transition: .toggleFavorite)),
                (known, PendingWrite(items: try ids("a", "c"), transition: .toggleFavorite)),
                (new, PendingWrite(items: try ids("a"), transition: .unlike)),
            ], on: store)
        let outcomes = try results.map { try $0.get() }
        let a = try ItemID(validating: "a"), c = try ItemID(validating: "c")
        #expect(outcomes[0].changed == 2 && outcomes[0].states[a]?.nickname == "n")
        #expect(outcomes[1].changed == 1 && outcomes[1].states[a]?.favoritedAt != nil)
        #expect(outcomes[2].states[a]?.favoritedAt == nil && outcomes[2].states[c]?.favoritedAt != nil,
                "the second call of a user saw the first one's favorite")
        #expect(outcomes[3].changed == 1 && outcomes[3].states[a]?.unlikedAt != nil)

        let transactions = try await service.postgres.query(
            "SELECT DISTINCT xmin::text AS tx FROM content.item_states WHERE user_id = ANY($1::uuid[]) AND item_id <> 'first'",
            [.text("{\(known.lowercasedText),\(other.lowercasedText),\(new.lowercasedText)}")])
        #expect(transactions.count == 1, "the four calls of three users were one statement")
        // Each user's versions go on from where they were, in the order of its calls.
        let versions = try await service.postgres.query(
            "SELECT item_id, version FROM content.item_states WHERE user_id = $1 ORDER BY version", [.uuid(known)])
        #expect(try versions.map { try $0.decode("item_id", as: String.self) } == ["first", "b", "a", "c"])
        #expect(try versions.map { try $0.decode("version", as: Int.self) } == [1, 3, 4, 5])
        #expect(try #require(try await service.versionRow(of: known)) == (5, 3))
        #expect(try #require(try await service.versionRow(of: other)) == (2, 1))
        #expect(try #require(try await service.versionRow(of: new)) == (1, 0))
    }

    @Test func aCallOverTheFavoritesLimitAmongOtherUsersIsRefusedAloneAndTheOthersStay() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration(maxFavoritesPerUser: 2))
        let (full, fine) = (UUID(), UUID())
        _ = try await store.write(user: full, items: try ids("x", "y"), .favorite(nickname: .keep, position: .keep))
        let results = try await queuedAcrossUsers(
            [
                (fine, PendingWrite(items: try ids("a"), transition: .favorite(nickname: .keep, position: .keep))),
                (full, PendingWrite(items: try ids("z"), transition: .favorite(nickname: .keep, position: .keep))),
                (fine, PendingWrite(items: try ids("b"), transition: .markRead)),
            ], on: store)
        #expect(try results[0].get().changed == 1)
        #expect(throws: ContentStateError.favoritesLimitReached(maximum: 2)) { try results[1].get() }
        #expect(try results[2].get().changed == 1)
        #expect(try #require(try await service.versionRow(of: full)) == (2, 2))
        #expect(try #require(try await service.versionRow(of: fine)) == (2, 1))
    }

    /// Many writers of a few users at once, their calls folded across users in whatever groups
    /// they meet: no statement waits for another in a cycle (Postgres would fail one with
    /// 40P01), and each user's versions are 1, 2, ... with nothing skipped or repeated.
    @Test func writersOfAFewUsersAllAtOnceNeverDeadlockAndKeepEachUsersVersionsInOrder() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration())
        let users = (0..<6).map { _ in UUID() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<30 {
                for (index, user) in users.enumerated() {
                    group.addTask {
                        let item = try ItemID(validating: "item-\((round * 7 + index) % 11)")
                        _ = try await store.write(user: user, items: [item], round.isMultiple(of: 3) ? .markRead : .toggleFavorite)
                    }
                }
            }
            try await group.waitForAll()
        }
        for user in users {
            let rows = try await service.postgres.query(
                "SELECT version, favorited_at IS NOT NULL AS favorited FROM content.item_states WHERE user_id = $1 ORDER BY version",
                [.uuid(user)])
            let versions = try rows.map { try $0.decode("version", as: Int.self) }
            let counter = try #require(try await service.versionRow(of: user))
            #expect(Set(versions).count == versions.count && versions.last == counter.version, "no version twice; the last is the counter")
            #expect(try rows.filter { try $0.decode("favorited", as: Bool.self) }.count == counter.favoriteCount)
        }
    }
}
