import AuditAPI
import FoundationEssentials
import Postgres
import ServiceProtocol
import TextCoding

/// What an event records besides its type: whose, which session, from where (the gateway's
/// view of the end user, carried in the RPC envelope) and its facts.
public struct AuditEntry: Sendable {
    public var type: AuditEventType
    public var userID: UUID?
    public var sessionID: UUID?
    public var ip: String?
    public var userAgent: String?
    public var requestID: String?
    public var details: [String: AuditValue]
    /// Names the event once: a retried call that records it again changes nothing.
    public var id: UUID

    public init(
        _ type: AuditEventType, userID: UUID?, sessionID: UUID? = nil, context: RPCRequestContext?,
        details: [String: AuditValue] = [:], id: UUID = .random()
    ) {
        self.type = type
        self.userID = userID
        self.sessionID = sessionID
        self.ip = context?.origin?.clientIP
        self.userAgent = context?.origin?.userAgent.map { String($0.prefix(AuditTrailLimits.userAgentLength)) }
        self.requestID = context?.requestID
        self.details = details
        self.id = id
    }

    /// The entry without where it came from: the deletion's own record keeps no personal data.
    public var anonymous: AuditEntry {
        var entry = self
        entry.ip = nil
        entry.userAgent = nil
        return entry
    }
}

/// A service's audit trail: its `<schema>.audit_events` table (each service records the events
/// of its own transactions in its own schema; the gateway merges the trails when it reads).
public struct AuditTrail: Sendable {
    let postgres: PostgresClient
    /// `identity.audit_events` or `tokens.audit_events`.
    public let table: String

    public init(postgres: PostgresClient, table: String) {
        self.postgres = postgres
        self.table = table
    }

    /// The insert of one entry, `$1`…`$8` its fields; repeating an id records nothing.
    var insert: String {
        """
        INSERT INTO \(self.table) (id, type, user_id, session_id, ip, user_agent, request_id, details)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb) ON CONFLICT (id) DO NOTHING
        """
    }

    /// The parameters of `insert` for `entry`.
    static func bindings(_ entry: AuditEntry) -> [PostgresValue] {
        [
            .uuid(entry.id), .text(entry.type.rawValue), PostgresValue(entry.userID), PostgresValue(entry.sessionID),
            PostgresValue(entry.ip), PostgresValue(entry.userAgent), PostgresValue(entry.requestID), .text(entry.details.jsonText),
        ]
    }

    /// An `INSERT … SELECT` of `entry` for a statement whose change is a CTE: one event for
    /// each row of `source`, its user and session the SQL expressions `userID` and
    /// `sessionID`, `details` merged with `moreDetails` (a `jsonb` expression). Its parameters,
    /// `selectBindings(entry)`, start at `$n`. For a data-modifying CTE of the same statement,
    /// so the event commits with the change or not at all.
    public func insertSelect(
        userID: String, sessionID: String, moreDetails: String = "'{}'::jsonb", from source: String, firstParameter n: Int
    ) -> String {
        Self.insertSelect(
            into: self.table, userID: userID, sessionID: sessionID, moreDetails: moreDetails, from: source, firstParameter: n)
    }

    /// `insertSelect` into the trail `table`, for statements built before any connection exists.
    public static func insertSelect(
        into table: String, userID: String, sessionID: String, moreDetails: String = "'{}'::jsonb", from source: String,
        firstParameter n: Int
    ) -> String {
        """
        INSERT INTO \(table) (id, type, user_id, session_id, ip, user_agent, request_id, details)
        SELECT $\(n)::uuid, $\(n + 1)::text, \(userID), \(sessionID), $\(n + 2)::text, $\(n + 3)::text, $\(n + 4)::text,
               $\(n + 5)::jsonb || \(moreDetails)
        FROM \(source)
        ON CONFLICT (id) DO NOTHING
        """
    }

    /// The parameters of `insertSelect` for `entry`.
    public static func selectBindings(_ entry: AuditEntry) -> [PostgresValue] {
        [
            .uuid(entry.id), .text(entry.type.rawValue), PostgresValue(entry.ip), PostgresValue(entry.userAgent),
            PostgresValue(entry.requestID), .text(entry.details.jsonText),
        ]
    }

    /// The parameters of an `insertSelect` that records nothing (six nulls: its id is null): for
    /// a folded statement whose calls record an event or not.
    public static let noSelectBindings = [PostgresValue](repeating: .null, count: selectParameterCount)

    /// How many parameters `insertSelect` takes.
    public static let selectParameterCount = 6

    /// Records `entry` inside the transaction that makes the change it records.
    public func record(_ entry: AuditEntry, on connection: PostgresConnection) async throws {
        try await connection.execute(self.insert, Self.bindings(entry))
    }

    /// Records `entry` on its own: for an event that is no change of this service's (an admin
    /// login), recorded once however often the caller retries (its id).
    public func record(_ entry: AuditEntry) async throws {
        try await self.postgres.execute(self.insert, Self.bindings(entry))
    }

    /// One page, newest first; a bad limit, cursor or type is `bad_request`.
    public func list(_ params: AuditListParams) async throws -> AuditPage {
        let limit = params.limit ?? 50
        guard (1...200).contains(limit) else { throw RPCError.badRequest("limit must be between 1 and 200") }
        var cursor: AuditCursor?
        if let text = params.cursor {
            guard let parsed = AuditCursor(text: text) else { throw RPCError.badRequest("cursor is not valid") }
            cursor = parsed
        }
        if let type = params.type, AuditEventType(rawValue: type) == nil {
            throw RPCError.badRequest("type is not an audit event type")
        }
        let rows = try await self.postgres.query(
            """
            SELECT id, type, user_id, session_id, ip, user_agent, request_id, details::text AS details,
                   to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS occurred_at,
                   (extract(epoch FROM occurred_at) * 1000000)::bigint AS occurred_us
            FROM \(self.table)
            WHERE ($1::uuid IS NULL OR user_id = $1::uuid) AND ($2::text IS NULL OR type = $2::text)
              AND ($3::bigint IS NULL
                   OR (occurred_at, id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::uuid))
            ORDER BY occurred_at DESC, id DESC
            LIMIT $5
            """,
            [
                PostgresValue(params.userID), PostgresValue(params.type), PostgresValue(cursor.map { Int($0.micros) }),
                PostgresValue(cursor?.id), .int(limit + 1),
            ])
        let events = try rows.prefix(limit).map { row in
            AuditEvent(
                id: try row.decode("id"), type: try row.decode("type"), occurredAt: try row.decode("occurred_at"),
                userID: try row.decode("user_id"), sessionID: try row.decode("session_id"), ip: try row.decode("ip"),
                userAgent: try row.decode("user_agent"), requestID: try row.decode("request_id"),
                details: (try? JSONDecoder().decode([String: AuditValue].self, from: Data(try row.decode("details", as: String.self).utf8))) ?? [:])
        }
        guard rows.count > limit, let last = rows.prefix(limit).last else { return AuditPage(events: events, nextCursor: nil) }
        let next = AuditCursor(micros: Int64(try last.decode("occurred_us", as: Int.self)), id: try last.decode("id"))
        return AuditPage(events: events, nextCursor: next.text)
    }

    /// Removes every event of a deleted user (their IP addresses, devices, sessions): run in the
    /// deletion's transaction, before it records the deletion itself without personal data.
    public func forget(user: UUID, on connection: PostgresConnection) async throws {
        try await connection.execute("DELETE FROM \(self.table) WHERE user_id = $1", [.uuid(user)])
    }

    /// Deletes events older than `days` (`AUDIT_RETENTION_DAYS`), at most `batch` at a time;
    /// returns how many went.
    @discardableResult
    public func purge(olderThanDays days: Int, batch: Int = 5000) async throws -> Int {
        var total = 0
        while true {
            let removed = try await self.postgres.execute(
                """
                DELETE FROM \(self.table) WHERE id IN (
                    SELECT id FROM \(self.table) WHERE occurred_at < now() - $1::bigint * interval '1 day' LIMIT $2)
                """, [.int(days), .int(batch)])
            total += removed
            if removed < batch { return total }
        }
    }
}
