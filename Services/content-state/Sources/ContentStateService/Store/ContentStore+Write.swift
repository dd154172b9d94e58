import ContentStateAPI
import FoundationEssentials
import Postgres
import TextCoding

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

/// One user's writes that go as one call of `content.write_batch`: what the user's write
/// line hands on, and what the cross-user write line folds with other users' calls.
struct UserWrites: Sendable {
    var user: UUID
    var writes: [PendingWrite]
}

extension ContentStore {
    /// Applies `transition` to each item of one user with one statement, `content.write_batch`
    /// (migration 3), alone or with the user's writes that waited in `writeLine` with it, and
    /// with other users' calls that waited in `usersWriteLine` (`content.write_entries`,
    /// migration 7). It locks the user's `user_versions` row, so a user's writers run one at a
    /// time, and gives each changed item the next number of the user's version under that
    /// lock, so versions commit in order and a changes poll never skips a change that commits
    /// late. The lock lasts for the statement only, not for the round trips of a transaction.
    func write(user: UUID, items: [ItemID], _ transition: ItemTransition) async throws -> WriteOutcome {
        try await writeLine.run(PendingWrite(items: items, transition: transition), for: user) { writes in
            try await usersWriteLine.run(UserWrites(user: user, writes: writes), for: .all) { calls in
                try await self.write(calls)
            }
        }
    }

    /// The calls of several users as one statement, each call and each of its writes answered
    /// on its own; a call alone is a `write_batch` statement. When the statement fails in the
    /// server (a write over the favorites limit, say) each call runs as a statement of its own,
    /// so that only what fails alone fails.
    private func write(_ calls: [UserWrites]) async throws -> [Result<[Result<WriteOutcome, any Error>], any Error>] {
        try await runTogether(calls) { call in
            try await self.write(user: call.user, call.writes)
        } together: { calls in
            // The calls' writes numbered through (from 1), and where each one's answer goes.
            var users: [String] = [], writes: [PendingWrite] = [], places: [(call: Int, write: Int)] = []
            var entryWrites: [String] = [], items: [ItemID] = []
            for (callIndex, call) in calls.enumerated() {
                for (writeIndex, write) in call.writes.enumerated() {
                    users.append(call.user.lowercasedText)
                    writes.append(write)
                    places.append((callIndex, writeIndex))
                    entryWrites.append(contentsOf: repeatElement(String(writes.count), count: write.items.count))
                    items.append(contentsOf: write.items)
                }
            }
            let arguments: [PostgresValue] = [.text(postgresArray(users))] + Self.transitionArrays(writes) + [
                .text(postgresArray(entryWrites)), .text(postgresTextArray(items)), .int(configuration.maxFavoritesPerUser),
            ]
            let rows = try await postgres.query(Self.writeEntries, arguments)
            var outcomes = calls.map { Array(repeating: WriteOutcome(states: [:], changed: 0), count: $0.writes.count) }
            for row in rows {
                let number = try row.decode("write_number", as: Int.self) - 1
                guard places.indices.contains(number) else {
                    throw PostgresError.decoding(column: "write_number", message: "no write \(number + 1) in this statement")
                }
                try outcomes[places[number].call][places[number].write].add(row)
            }
            return outcomes.map { .success($0.map { .success($0) }) }
        }
    }

    /// `writes` of one user in order, as one statement; each answered on its own. When one of
    /// them would pass the favorites limit the statement changes nothing, and they run one by
    /// one, so that only that one is refused.
    private func write(user: UUID, _ writes: [PendingWrite]) async throws -> [Result<WriteOutcome, any Error>] {
        let arguments: [PostgresValue] = [.uuid(user)] + Self.writeArrays(writes) + [.int(configuration.maxFavoritesPerUser)]
        let rows: [PostgresRow]
        do {
            rows = try await postgres.query(Self.writeBatch, arguments)
        } catch let error as PostgresError where error.sqlState == Self.favoritesLimitState {
            if writes.count == 1 {
                throw ContentStateError.favoritesLimitReached(maximum: configuration.maxFavoritesPerUser)
            }
            return await oneByOne(writes) { try await self.write(user: user, [$0])[0].get() }
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

    /// The arrays `write_batch` takes for `writes`, one element per write (the items of all of
    /// them in one array, `sizes` saying how many each has).
    private static func writeArrays(_ writes: [PendingWrite]) -> [PostgresValue] {
        [
            .text(postgresArray(writes.map { String($0.items.count) })),
            .text(postgresTextArray(writes.flatMap(\.items))),
        ] + transitionArrays(writes)
    }

    /// What each of `writes` does, as `write_batch` and `write_entries` take it: one element
    /// per write in each of the five arrays.
    static func transitionArrays(_ writes: [PendingWrite]) -> [PostgresValue] {
        let transitions = writes.map(\.transition.arguments)
        return [
            .text(postgresArray(transitions.map(\.name))),
            .text(postgresArray(transitions.map { $0.setNickname ? "t" : "f" })),
            .text(postgresArray(transitions.map(\.nickname))),
            .text(postgresArray(transitions.map { $0.setPosition ? "t" : "f" })),
            .text(postgresArray(transitions.map { $0.position.map(String.init) })),
        ]
    }

    static let writeBatch = """
        SELECT write_index, item_id, favorited_ms, nickname, position, read_ms, unliked_ms, changed
        FROM content.write_batch($1::uuid, $2::integer[], $3::text[], $4::text[], $5::boolean[], $6::text[],
            $7::boolean[], $8::bigint[], $9::integer)
        """

    static let writeEntries = """
        SELECT write_number, item_id, favorited_ms, nickname, position, read_ms, unliked_ms, changed
        FROM content.write_entries($1::uuid[], $2::text[], $3::boolean[], $4::text[], $5::boolean[], $6::bigint[],
            $7::integer[], $8::text[], $9::integer)
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
