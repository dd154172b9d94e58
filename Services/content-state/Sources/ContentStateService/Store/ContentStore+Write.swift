import ContentStateAPI
import Foundation
import Postgres

/// What a write did: the state of each item afterwards, and how many items changed.
struct WriteOutcome: Sendable {
    var states: [ItemID: ItemState]
    var changed: Int
}

/// One write waiting in the write line: a transition of some items of one user.
struct PendingWrite: Sendable {
    var items: [ItemID]
    var transition: ItemTransition
}

extension ContentStore {
    /// Applies `transition` to each item of one user with one statement, `content.write_batch`
    /// (migration 3), alone or with the user's writes that waited in `writeLine` with it. It
    /// locks the user's `user_versions` row, so a user's writers run one at a time, and gives
    /// each changed item the next number of the user's version under that lock, so versions
    /// commit in order and a changes poll never skips a change that commits late. The lock
    /// lasts for the statement only, not for the round trips of a transaction.
    func write(user: UUID, items: [ItemID], _ transition: ItemTransition) async throws -> WriteOutcome {
        try await writeLine.run(PendingWrite(items: items, transition: transition), for: user) { writes in
            try await self.write(user: user, writes)
        }
    }

    /// `writes` in order, as one statement; each answered on its own. When one of them would
    /// pass the favorites limit the statement changes nothing, and they run one by one, so
    /// that only that one is refused.
    private func write(user: UUID, _ writes: [PendingWrite]) async throws -> [Result<WriteOutcome, any Error>] {
        let transitions = writes.map(\.transition.arguments)
        let arguments: [PostgresValue] = [
            .uuid(user),
            .text(postgresArray(writes.map { String($0.items.count) })),
            .text(postgresTextArray(writes.flatMap(\.items))),
            .text(postgresArray(transitions.map(\.name))),
            .text(postgresArray(transitions.map { $0.setNickname ? "t" : "f" })),
            .text(postgresArray(transitions.map(\.nickname))),
            .text(postgresArray(transitions.map { $0.setPosition ? "t" : "f" })),
            .text(postgresArray(transitions.map { $0.position.map(String.init) })),
            .int(configuration.maxFavoritesPerUser),
        ]
        let rows: [PostgresRow]
        do {
            rows = try await postgres.query(Self.writeBatch, arguments)
        } catch let error as PostgresError where error.sqlState == Self.favoritesLimitState {
            if writes.count == 1 {
                throw ContentStateError.favoritesLimitReached(maximum: configuration.maxFavoritesPerUser)
            }
            var results: [Result<WriteOutcome, any Error>] = []
            for write in writes {
                do {
                    results.append(try await self.write(user: user, [write])[0])
                } catch {
                    results.append(.failure(error))
                }
            }
            return results
        }
        var outcomes = Array(repeating: WriteOutcome(states: [:], changed: 0), count: writes.count)
        for row in rows {
            let index = try row.decode("write_index", as: Int.self) - 1
            guard outcomes.indices.contains(index) else {
                throw PostgresError.decoding(column: "write_index", message: "no write \(index + 1) in this statement")
            }
            try outcomes[index].add(row)
        }
        return outcomes.map { .success($0) }
    }

    static let writeBatch = """
        SELECT write_index, item_id, favorited_ms, nickname, position, read_ms, unliked_ms, changed
        FROM content.write_batch($1::uuid, $2::integer[], $3::text[], $4::text[], $5::boolean[], $6::text[],
            $7::boolean[], $8::bigint[], $9::integer)
        """

    /// The SQLSTATE `content.write_batch` raises when a write would pass the favorites limit.
    static let favoritesLimitState = "LK001"
}

extension WriteOutcome {
    /// Adds an item row of `write_batch`.
    fileprivate mutating func add(_ row: PostgresRow) throws {
        let id = try ItemID(validating: try row.decode("item_id", as: String.self))
        self.states[id] = try ItemState(row: row)
        if try row.decode("changed", as: Bool.self) { self.changed += 1 }
    }
}
