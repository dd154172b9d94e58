import ContentStateAPI
import FoundationEssentials
import Postgres

extension ContentStore {
    /// Merges the guest's favorites, read marks and unlikes into `target` with one statement,
    /// `content.merge_guest` (migration 6): under both users' locks, each changed item of the
    /// target gets the next number of its version; the guest's rows go; a repeat answers the
    /// recorded merge (whose target may be another user: the caller compares).
    func merge(guest: UUID, into target: UUID) async throws -> UserMergeResult {
        guard guest != target else { throw ContentStateError.mergeIntoItself }
        let rows = try await postgres.query(
            """
            SELECT merged_into, merged_favorites, merged_read, merged_unlikes FROM content.merge_guest($1::uuid, $2::uuid)
            """, [.uuid(guest), .uuid(target)])
        guard let row = rows.first else { throw PostgresError.decoding(column: "merged_into", message: "merge_guest answered no row") }
        return UserMergeResult(
            intoUserID: try row.decode("merged_into"),
            changed: UserContentCounts(
                favorites: try row.decode("merged_favorites"), read: try row.decode("merged_read"),
                unlikes: try row.decode("merged_unlikes")))
    }
}
