import AuditAPI
import FoundationEssentials
import IdentityAPI
import Postgres
import ServiceProtocol
import TextCoding

/// The feed of user lifecycle events for other services (DESIGN.md section 9.4): an outbox
/// table, `identity.user_events`, written in the transaction of each change and read in
/// commit order by `identity.events.read` (and pushed to `WEBHOOK_URLS`).
///
/// Commit order. A cursor over a plain sequence can skip: transaction A takes seq 5, B takes
/// seq 6 and commits first, a reader sees 6 and moves its cursor past 5, then A commits and 5
/// is never read. So each append first takes the feed's transaction-level advisory lock and
/// only then takes its number; the lock is held until the transaction commits, so numbers are
/// handed out in commit order and no row can appear below one a reader has seen. (Reading only
/// below the oldest running transaction, `pg_snapshot_xmin(pg_current_snapshot())`, would
/// also avoid the skip without serialising writers, but it stalls every reader behind any long
/// transaction in the database and orders by start, not commit.) The cost: identity's writing
/// transactions serialise on their last statement, from the append to the commit, one short
/// step; identity writes the feed only when a user changes, not on a repeat sign-in.
/// An append must therefore be the last statement of its transaction (or be followed only by
/// other appends), so that no transaction waits for a row lock while holding the feed.
struct EventFeed: Sendable {
    let postgres: PostgresClient

    static let lockKey = "identity:user_events"

    /// Appends one event in the caller's transaction (its last statement).
    /// `id` names the event: appending the same id again adds nothing (a retried call).
    static func append(
        _ type: UserEventType, user: UUID, data: [String: AuditValue] = [:], id: UUID = .random(), on connection: PostgresConnection
    ) async throws {
        try await connection.execute(Self.appendStatement, Self.bindings(type, user: user, data: data, id: id))
    }

    /// `$1` id, `$2` type, `$3` user, `$4` data: the lock first, then the number.
    static let appendStatement = """
        WITH locked AS (SELECT pg_advisory_xact_lock(hashtext('\(lockKey)')))
        INSERT INTO identity.user_events (seq, id, type, user_id, data)
        SELECT nextval('identity.user_event_seq'), $1, $2, $3, $4::jsonb FROM locked
        ON CONFLICT (id) DO NOTHING
        """

    static func bindings(_ type: UserEventType, user: UUID, data: [String: AuditValue], id: UUID) -> [PostgresValue] {
        [.uuid(id), .text(type.rawValue), .uuid(user), .text(data.jsonText)]
    }

    /// Appends one event in a transaction of its own (an event of a change another service
    /// made: `sessions.revoked`), once per `id`.
    func append(_ type: UserEventType, user: UUID, data: [String: AuditValue], id: UUID) async throws {
        try await self.postgres.withTransaction { connection in
            try await Self.append(type, user: user, data: data, id: id, on: connection)
        }
    }

    /// The events after `since`, in commit order.
    func read(_ params: EventsReadParams) async throws -> EventsPage {
        let limit = params.limit ?? 100
        guard (1...1000).contains(limit) else { throw IdentityError.badRequest("limit must be between 1 and 1000") }
        var since: Int = 0
        if let text = params.since {
            guard text.utf8.count <= 19, let value = Int(text), value >= 0 else { throw IdentityError.badRequest("since is not a cursor") }
            since = value
        }
        let rows = try await self.postgres.query(
            """
            SELECT seq, id, type, user_id, data::text AS data,
                   to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS occurred_at
            FROM identity.user_events WHERE seq > $1 ORDER BY seq LIMIT $2
            """, [.int(since), .int(limit)])
        let events = try rows.map { row in
            UserEvent(
                id: try row.decode("id"), type: try row.decode("type"), userID: try row.decode("user_id"),
                occurredAt: try row.decode("occurred_at"),
                data: (try? JSONDecoder().decode([String: AuditValue].self, from: Data(try row.decode("data", as: String.self).utf8))) ?? [:],
                cursor: String(try row.decode("seq", as: Int.self)))
        }
        return EventsPage(events: events, nextCursor: events.last?.cursor ?? params.since, hasMore: events.count == limit)
    }

    /// Removes a deleted user's events (the deletion's own `user.deleted` is appended after).
    static func forget(user: UUID, on connection: PostgresConnection) async throws {
        try await connection.execute("DELETE FROM identity.user_events WHERE user_id = $1", [.uuid(user)])
    }

    /// Deletes events older than `days` (`EVENT_RETENTION_DAYS`).
    @discardableResult
    func purge(olderThanDays days: Int) async throws -> Int {
        try await self.postgres.execute(
            "DELETE FROM identity.user_events WHERE occurred_at < now() - $1::bigint * interval '1 day'", [.int(days)])
    }
}
