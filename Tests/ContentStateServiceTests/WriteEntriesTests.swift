@testable import ContentStateService
import Foundation
import Postgres
import Testing
import TestSupport

/// `content.write_entries`, the set-based statement content-state runs the writes of several
/// users with: each of its answers and everything it leaves in the tables is what
/// `content.write_batch` calls of the same writes, one a run of one user's writes in one
/// transaction, answer and leave, and what `content.write_users`, which the release before it
/// runs, answers and leaves.
@Suite struct WriteEntriesTests {
    /// One write as the functions take it: a transition of some items of one user.
    private struct Write {
        var user: UUID
        var transition: ItemTransition
        var items: [String]
    }

    /// What a row of either function says of an item, its times as whether they are set.
    private struct Answer: Equatable, CustomStringConvertible {
        var write: Int, item: String, favorited: Bool, nickname: String?, position: Int64?, read: Bool, unliked: Bool, changed: Bool
        var description: String {
            "w\(write) \(item) fav=\(favorited) nick=\(nickname ?? "-") pos=\(position.map(String.init) ?? "-") read=\(read) unliked=\(unliked) changed=\(changed)"
        }

        init(_ row: PostgresRow, write: Int) throws {
            self.write = write
            item = try row.decode("item_id", as: String.self)
            favorited = try row.decode("favorited_ms", as: Int64?.self) != nil
            nickname = try row.decode("nickname", as: String?.self)
            position = try row.decode("position", as: Int64?.self)
            read = try row.decode("read_ms", as: Int64?.self) != nil
            unliked = try row.decode("unliked_ms", as: Int64?.self) != nil
            changed = try row.decode("changed", as: Bool.self)
        }
    }

    /// The rows of a call, or the SQLSTATE it failed with.
    private enum Outcome: Equatable {
        case rows([Answer])
        case failed(String)
    }

    private static let transitionArrays = """
        $2::text[], $3::boolean[], $4::text[], $5::boolean[], $6::bigint[]
        """

    private func transitionArguments(_ writes: [Write]) -> [PostgresValue] {
        ContentStore.transitionArrays(writes.map { PendingWrite(items: [], transition: $0.transition) })
    }

    private func failure(_ error: any Error) throws -> Outcome {
        guard let error = error as? PostgresError, let state = error.sqlState else { throw error }
        return .failed(state)
    }

    /// `writes` as one call of `content.write_entries`.
    private func entries(_ writes: [Write], maxFavorites: Int, on postgres: PostgresClient) async throws -> Outcome {
        var entryWrites: [String?] = [], items: [String?] = []
        for (index, write) in writes.enumerated() {
            entryWrites += write.items.map { _ in String(index + 1) }
            items += write.items
        }
        do {
            let rows = try await postgres.query(
                "SELECT * FROM content.write_entries($1::uuid[], \(Self.transitionArrays), $7::integer[], $8::text[], $9::integer)",
                [.text(postgresArray(writes.map(\.user.lowercasedText)))] + transitionArguments(writes)
                    + [.text(postgresArray(entryWrites)), .text(postgresArray(items)), .int(maxFavorites)])
            return .rows(try rows.map { try Answer($0, write: try $0.decode("write_number", as: Int.self)) })
        } catch {
            return try failure(error)
        }
    }

    /// `writes` as `content.write_batch` calls, one a run of consecutive writes of one user,
    /// in one transaction; `mirror` names the user each of the writes' users stands for.
    private func batches(
        _ writes: [Write], mirror: [UUID: UUID], maxFavorites: Int, on postgres: PostgresClient
    ) async throws -> Outcome {
        let runs = Self.runs(of: writes)
        do {
            let answers = try await postgres.withTransaction { connection in
                var answers: [Answer] = []
                for run in runs {
                    let runWrites = run.map { writes[$0] }
                    let rows = try await connection.query(
                        "SELECT * FROM content.write_batch($1::uuid, $7::integer[], $8::text[], \(Self.transitionArrays), $9::integer)",
                        [.uuid(mirror[runWrites[0].user]!)] + transitionArguments(runWrites) + [
                            .text(postgresArray(runWrites.map { String($0.items.count) })),
                            .text(postgresArray(runWrites.flatMap(\.items))), .int(maxFavorites),
                        ])
                    answers += try rows.map { try Answer($0, write: run[0] + (try $0.decode("write_index", as: Int.self))) }
                }
                return answers
            }
            return .rows(answers)
        } catch {
            return try failure(error)
        }
    }

    /// The indices of `writes` in runs of consecutive writes of one user.
    private static func runs(of writes: [Write]) -> [[Int]] {
        var runs: [[Int]] = []
        for index in writes.indices {
            if let last = runs.last?.last, writes[last].user == writes[index].user { runs[runs.count - 1].append(index) } else { runs.append([index]) }
        }
        return runs
    }

    /// `writes` as one call of `content.write_users` (migration 4, which replicas of the
    /// release before migration 7 still run during an upgrade), a group a run of one user's
    /// writes; `mirror` names the user each of the writes' users stands for.
    private func usersCall(
        _ writes: [Write], mirror: [UUID: UUID], maxFavorites: Int, on postgres: PostgresClient
    ) async throws -> Outcome {
        let runs = Self.runs(of: writes)
        do {
            let rows = try await postgres.query(
                """
                SELECT * FROM content.write_users($1::uuid[], $2::integer[], $3::integer[], $4::text[], $5::text[],
                    $6::boolean[], $7::text[], $8::boolean[], $9::bigint[], $10::integer)
                """,
                [
                    .text(postgresArray(runs.map { mirror[writes[$0[0]].user]!.lowercasedText })),
                    .text(postgresArray(runs.map { String($0.count) })),
                    .text(postgresArray(writes.map { String($0.items.count) })),
                    .text(postgresArray(writes.flatMap(\.items))),
                ] + transitionArguments(writes) + [.int(maxFavorites)])
            return .rows(try rows.map { row in
                let run = runs[try row.decode("user_index", as: Int.self) - 1]
                return try Answer(row, write: run[0] + (try row.decode("write_index", as: Int.self)))
            })
        } catch {
            return try failure(error)
        }
    }

    /// A user's items and version row, times as whether they are set.
    private func tables(of user: UUID, _ service: TestService) async throws -> [String] {
        let rows = try await service.postgres.query(
            """
            SELECT item_id || ' ' || (favorited_at IS NOT NULL) || ' ' || coalesce(nickname, '-') || ' '
                || coalesce(position::text, '-') || ' ' || (read_at IS NOT NULL) || ' ' || (unliked_at IS NOT NULL)
                || ' v' || version AS line
            FROM content.item_states WHERE user_id = $1 ORDER BY item_id
            """, [.uuid(user)])
        let counter = try await service.versionRow(of: user)
        return try rows.map { try $0.decode("line", as: String.self) } + ["counter \(String(describing: counter))"]
    }

    private func randomTransition(_ random: inout SeededRandom) -> ItemTransition {
        switch Int.random(in: 0..<9, using: &random) {
        case 0, 1, 2:
            return .favorite(
                nickname: Bool.random(using: &random) ? .set("n\(Int.random(in: 0..<3, using: &random))") : .keep,
                position: Bool.random(using: &random) ? .set(Int64.random(in: 0..<3, using: &random)) : .keep)
        case 3: return .unfavorite
        case 4: return .toggleFavorite
        case 5: return .markRead
        case 6: return .unmarkRead
        case 7: return .unlike
        default: return .removeUnlike
        }
    }

    /// Calls of two users, in every order and mix (a user's writes together or apart, items
    /// of one user twice in a call or not, over the favorites limit or not), each run as
    /// `write_entries`, as `write_batch` calls for two other users and as a `write_users` call
    /// for two more: the same answers, the same refusals, the same tables.
    @Test func answersAndLeavesWhatWriteBatchCallsOfTheSameWritesDo() async throws {
        let service = try await TestService.standard()
        let (a, c, b, d) = (UUID(), UUID(), UUID(), UUID())
        let mirror = [a: b, c: d]
        let (e, f) = (UUID(), UUID())
        let previousRelease = [a: e, c: f]
        let pool = ["i0", "i1", "i2", "i3", "i4"]
        var random = SeededRandom(seed: 47)
        var paths = (oneWriteAUser: 0, repeated: 0, refused: 0)
        for round in 0..<80 {
            // Even rounds: one write a user (no item twice for a user, the set-based path);
            // odd rounds: up to four writes in any order of users.
            let count = round.isMultiple(of: 2) ? 2 : Int.random(in: 1...4, using: &random)
            var users = round.isMultiple(of: 2) ? [a, c].shuffled(using: &random) : []
            while users.count < count { users.append(Bool.random(using: &random) ? a : c) }
            let writes = users.map { user in
                Write(user: user, transition: randomTransition(&random),
                      items: Array(pool.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random))))
            }
            var seen = Set<String>()
            if writes.contains(where: { write in write.items.contains { !seen.insert("\(write.user) \($0)").inserted } }) {
                paths.repeated += 1
            }
            if round.isMultiple(of: 2) { paths.oneWriteAUser += 1 }
            let maxFavorites = 3
            let expected = try await batches(writes, mirror: mirror, maxFavorites: maxFavorites, on: service.postgres)
            let got = try await entries(writes, maxFavorites: maxFavorites, on: service.postgres)
            if case .failed = expected { paths.refused += 1 }
            #expect(got == expected, "round \(round): \(writes.map { "\($0.user == a ? "a" : "c") \($0.transition) \($0.items)" })")
            #expect(try await tables(of: a, service) == (try await tables(of: b, service)), "round \(round)")
            #expect(try await tables(of: c, service) == (try await tables(of: d, service)), "round \(round)")
            let previous = try await usersCall(writes, mirror: previousRelease, maxFavorites: maxFavorites, on: service.postgres)
            #expect(previous == expected, "round \(round), write_users")
            #expect(try await tables(of: e, service) == (try await tables(of: b, service)), "round \(round), write_users")
            #expect(try await tables(of: f, service) == (try await tables(of: d, service)), "round \(round), write_users")
        }
        #expect(paths.oneWriteAUser == 40 && paths.repeated >= 10 && paths.refused >= 3, "\(paths)")
    }

    @Test func oneStatementWritesEveryUsersItemsInEntryOrderUnderOneTime() async throws {
        let service = try await TestService.standard()
        let (first, second) = (UUID(), UUID())
        let writes = [
            Write(user: first, transition: .favorite(nickname: .set("n"), position: .keep), items: ["a", "b"]),
            Write(user: second, transition: .markRead, items: ["a"]),
            Write(user: first, transition: .toggleFavorite, items: ["c"]),
        ]
        guard case .rows(let rows) = try await entries(writes, maxFavorites: 10, on: service.postgres) else {
            Issue.record("the call failed")
            return
        }
        #expect(rows.map(\.write) == [1, 1, 2, 3] && rows.map(\.item) == ["a", "b", "a", "c"])
        let written = try await service.postgres.query(
            """
            SELECT user_id = $1 AS first, item_id, version, updated_at::text AS at, xmin::text AS tx
            FROM content.item_states WHERE user_id IN ($1, $2) ORDER BY user_id = $1 DESC, version
            """, [.uuid(first), .uuid(second)])
        #expect(try written.map { try $0.decode("item_id", as: String.self) } == ["a", "b", "c", "a"])
        #expect(try written.map { try $0.decode("version", as: Int.self) } == [1, 2, 3, 1])
        #expect(Set(try written.map { try $0.decode("at", as: String.self) }).count == 1, "one time for the call")
        #expect(Set(try written.map { try $0.decode("tx", as: String.self) }).count == 1, "one transaction")
        #expect(try #require(try await service.versionRow(of: first)) == (3, 3))
        #expect(try #require(try await service.versionRow(of: second)) == (1, 0))
    }

    /// The limit is counted at the end of each write that adds favorites: a toggle that
    /// favorites two items and unfavorites a third takes a user from one favorite to the limit
    /// of two, passing it on the way, and is not refused; a write that adds one more is, and
    /// nothing of its call stays.
    @Test func theLimitCountsAtTheEndOfEachWriteThatAddsFavorites() async throws {
        let service = try await TestService.standard()
        let (user, other) = (UUID(), UUID())
        _ = try await entries(
            [Write(user: user, transition: .favorite(nickname: .keep, position: .keep), items: ["x"])],
            maxFavorites: 2, on: service.postgres)
        let toggled = try await entries(
            [Write(user: other, transition: .markRead, items: ["x"]), Write(user: user, transition: .toggleFavorite, items: ["z", "w", "x"])],
            maxFavorites: 2, on: service.postgres)
        #expect(toggled != .failed("LK001"))
        #expect(try #require(try await service.versionRow(of: user)) == (4, 2))
        let refused = try await entries(
            [Write(user: other, transition: .markRead, items: ["y"]),
             Write(user: user, transition: .favorite(nickname: .keep, position: .keep), items: ["v"])],
            maxFavorites: 2, on: service.postgres)
        #expect(refused == .failed("LK001"))
        #expect(try #require(try await service.versionRow(of: user)) == (4, 2))
        #expect(try #require(try await service.versionRow(of: other)) == (1, 0), "the other user's write in the call is undone too")
    }

    @Test func anUnknownTransitionIsRefusedAndWritesNothing() async throws {
        let service = try await TestService.standard()
        let user = UUID()
        await #expect { () async throws -> Void in
            _ = try await service.postgres.query(
                "SELECT * FROM content.write_entries($1::uuid[], '{star}', '{f}', '{NULL}', '{f}', '{NULL}', '{1}', '{a}', 10)",
                [.text("{\(user.lowercasedText)}")])
        } throws: { ($0 as? PostgresError)?.sqlState == "22023" }
        #expect(try await service.versionRow(of: user) == nil)
    }
}
