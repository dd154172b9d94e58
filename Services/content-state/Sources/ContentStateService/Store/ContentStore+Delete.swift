import FoundationEssentials
import Postgres

extension ContentStore {
    /// Deletes every row of the user, tombstones and version included; returns how many
    /// items had a row. Idempotent. The version row goes first so that a concurrent writer
    /// waits for this transaction and writes after it, never in between.
    func deleteAll(user: UUID) async throws -> Int {
        try await postgres.withTransaction { connection in
            try await connection.execute("DELETE FROM content.user_versions WHERE user_id = $1", [.uuid(user)])
            // The records of guests merged into the user (kept a day for a repeat) name it too.
            try await connection.execute("DELETE FROM content.guest_merges WHERE target_user_id = $1", [.uuid(user)])
            return try await connection.execute("DELETE FROM content.item_states WHERE user_id = $1", [.uuid(user)])
        }
    }
}
