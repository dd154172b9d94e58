import ContentStateAPI
import Foundation
import Postgres

/// What a write did: the state of each item afterwards, and how many items changed.
struct WriteOutcome: Sendable {
    var states: [ItemID: ItemState]
    var changed: Int
}

extension ContentStore {
    /// Applies `transition` to each item of one user with one statement, `content.write_items`
    /// (migration 2): it locks the user's `user_versions` row, so a user's writers run one at a
    /// time, and gives each changed item the next number of the user's version under that lock,
    /// so versions commit in order and a changes poll never skips a change that commits late.
    /// The lock lasts for the statement only, not for the round trips of a transaction. Beyond
    /// four writes of the user at once, this replica's others wait in `writeLine`, not on
    /// connections.
    func write(user: UUID, items: [ItemID], _ transition: ItemTransition) async throws -> WriteOutcome {
        let rows: [PostgresRow]
        let arguments: [PostgresValue] = [.uuid(user), .text(postgresTextArray(items))] + transition.sqlArguments
            + [.int(configuration.maxFavoritesPerUser)]
        do {
            rows = try await writeLine.run(for: user) {
                try await postgres.query(Self.writeItems, arguments)
            }
        } catch let error as PostgresError where error.sqlState == Self.favoritesLimitState {
            throw ContentStateError.favoritesLimitReached(maximum: configuration.maxFavoritesPerUser)
        }
        var outcome = WriteOutcome(states: [:], changed: 0)
        for row in rows {
            let id = try ItemID(validating: try row.decode("item_id", as: String.self))
            outcome.states[id] = try ItemState(row: row)
            if try row.decode("changed", as: Bool.self) { outcome.changed += 1 }
        }
        return outcome
    }

    static let writeItems = """
        SELECT item_id, favorited_ms, nickname, position, read_ms, unliked_ms, changed
        FROM content.write_items($1::uuid, $2::text[], $3::text, $4::boolean, $5::text, $6::boolean, $7::bigint, $8::integer)
        """

    /// The SQLSTATE `content.write_items` raises when the write would pass the favorites limit.
    static let favoritesLimitState = "LK001"
}
