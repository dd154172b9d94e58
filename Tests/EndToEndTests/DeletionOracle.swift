import Foundation
import Logging
import Postgres
import Redis
import TestSupport
import Testing

/// What the system still holds of a deleted user, read behind the services' backs: every column
/// of every table that names a user, a session or a provider subject (found in
/// `information_schema`, so a table added tomorrow is swept the day it exists), and every Redis
/// key that names one of them. Nothing may remain but what `keptOnPurpose` lists, and what it
/// lists must be in the state it says.
///
/// Take `DeletionOracle.Traces.of(user:)` before the deletion (it remembers the user's sessions
/// and subjects, which the deletion removes), delete, then `expectNothingLeft(of:)`.
enum DeletionOracle {
    /// What names a user, directly or through what it owned.
    struct Traces: Sendable, CustomStringConvertible {
        var userID: String
        var sessionIDs: [String]
        var subjects: [String]

        /// The user's ids as the database holds them now (before the deletion).
        static func of(user userID: String) async throws -> Traces {
            let id = userID.lowercased()
            guard let user = UUID(uuidString: id) else { throw StackError.unexpected("not a user id: \(userID)") }
            return try await withTestDatabase { postgres in
                let sessions = try await postgres.query("SELECT id::text AS id FROM tokens.sessions WHERE user_id = $1", [.uuid(user)])
                let subjects = try await postgres.query("SELECT subject FROM identity.identities WHERE user_id = $1", [.uuid(user)])
                return Traces(
                    userID: id, sessionIDs: try sessions.map { try $0.decode("id", as: String.self) },
                    subjects: try subjects.map { try $0.decode("subject", as: String.self) })
            }
        }

        var description: String { "user \(userID), sessions \(sessionIDs), subjects \(subjects)" }
    }

    /// The columns that name a user (`user_id`, `*_user_id`, `identity.users.id`), a session
    /// (`session_id`, `*_session_id`) or a provider subject (`subject`), and what each holds.
    enum Kind: String, Sendable {
        case user, session, subject
    }

    /// The one list of what the contract keeps of a deleted user on purpose, by
    /// `schema.table.column`: a SQL condition every row the user left there must meet, and
    /// whether at least one such row must be there.
    struct Kept: Sendable {
        var condition: String
        var required: Bool
        var why: String
    }

    static let keptOnPurpose: [String: Kept] = [
        // The per-user not-before that kills every access token issued before the deletion;
        // deleted by tokens' cleanup once no such token can live (ACCESS_TOKEN_TTL).
        "tokens.user_revocations.user_id": Kept(
            // `merged`: a guest whose state merged into another account (DESIGN.md section 9.1).
            condition: "reason IN ('deleted', 'merged') AND not_before <= now() + interval '1 second'", required: true,
            why: "the not-before of every access token the user held"),
        // Revoked sessions and their refresh tokens stay until the cleanup deletes them, one
        // access-token lifetime after their revocation: Postgres is the source of the session
        // keys a Redis reseed writes. None of them can be used: every one is revoked.
        "tokens.sessions.user_id": Kept(
            condition: "revoked_at IS NOT NULL", required: false, why: "revoked sessions until the cleanup"),
        "tokens.refresh_tokens.session_id": Kept(
            condition: "session_id IN (SELECT id FROM tokens.sessions WHERE revoked_at IS NOT NULL)", required: false,
            why: "the hashes of a revoked session's refresh tokens until the cleanup"),
        // The copy of a revocation to Redis, deleted within seconds once copied.
        "tokens.revocation_copies.user_id": Kept(condition: "true", required: false, why: "a revocation on its way to Redis"),
        "tokens.revocation_copies.session_id": Kept(condition: "true", required: false, why: "a revocation on its way to Redis"),
        // Apple's notifications are remembered by jti (DESIGN.md §5: at least 7 days) so a
        // repeat is not applied twice.
        "identity.apple_notifications.user_id": Kept(condition: "true", required: false, why: "Apple's notification ids, applied once"),
        "identity.apple_notifications.subject": Kept(condition: "true", required: false, why: "Apple's notification ids, applied once"),
        // The deletion's own audit record (DESIGN.md section 9.3), and Apple's notification
        // that deleted the account: without IP address or user agent. Every other event of the
        // user, in identity's trail and tokens', goes with the deletion.
        "identity.audit_events.user_id": Kept(
            condition: "type IN ('account_deleted', 'apple_notification') AND ip IS NULL AND user_agent IS NULL",
            required: true, why: "the deletion's own record, without personal data"),
        // The feed for other services (DESIGN.md section 9.4) keeps `user.deleted`, which tells
        // them; the user's earlier events go with the deletion. (A merged guest leaves none: its
        // `guest.merged` is the target's.)
        "identity.user_events.user_id": Kept(
            condition: "type = 'user.deleted' AND data = jsonb_build_object('by', data->>'by')", required: false,
            why: "the feed's user.deleted, with nothing but who deleted"),
        // A merged guest's record (guest -> account, counts), so that a repeat of the sign-in
        // answers the same merge; deleted after a day, or with the account it names.
        "content.guest_merges.guest_user_id": Kept(
            condition: "merged_at > now() - interval '1 day'", required: false, why: "a guest's merge, answered again on a repeat"),
    ]

    /// Redis keys that may name the deleted user, with whether one must be there.
    static func keptRedisKeys(_ traces: Traces) -> (allowed: Set<String>, required: Set<String>) {
        let user = "latchkey:revoked:user:\(traces.userID)"
        let sessions = traces.sessionIDs.map { "latchkey:revoked:session:\($0)" }
        return (Set([user] + sessions), [user])
    }

    /// The tables the sweep must find at least, so that it can never pass by finding nothing.
    static let knownColumns: Set<String> = [
        "identity.users.id", "identity.identities.user_id", "identity.identities.subject", "tokens.sessions.user_id",
        "tokens.refresh_tokens.session_id", "tokens.user_revocations.user_id", "content.item_states.user_id",
        "content.user_versions.user_id",
    ]

    /// Sweeps Postgres and Redis for the user's traces; records an issue for each that should
    /// not be there. Returns the columns swept and the rows kept on purpose, for the caller's
    /// own checks.
    @discardableResult
    static func expectNothingLeft(
        of traces: Traces, redisURL: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Int] {
        var kept: [String: Int] = [:]
        try await withTestDatabase { postgres in
            let columns = try await postgres.query(
                """
                SELECT c.table_schema AS schema, c.table_name AS name, c.column_name AS column FROM information_schema.columns c
                JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
                WHERE t.table_type = 'BASE TABLE'
                  AND c.table_schema NOT IN ('pg_catalog', 'information_schema') AND c.table_schema NOT LIKE 'pg_temp%'
                  AND (c.column_name IN ('user_id', 'session_id', 'subject') OR c.column_name LIKE '%\\_user\\_id'
                       OR c.column_name LIKE '%\\_session\\_id'
                       OR (c.table_schema = 'identity' AND c.table_name = 'users' AND c.column_name = 'id'))
                ORDER BY 1, 2, 3
                """)
            var swept: Set<String> = []
            for row in columns {
                let (schema, table, column) = (
                    try row.decode("schema", as: String.self), try row.decode("name", as: String.self), try row.decode("column", as: String.self)
                )
                let name = "\(schema).\(table).\(column)"
                let values: [String]
                switch Self.kind(of: column) {
                case .user: values = [traces.userID]
                case .session: values = traces.sessionIDs
                case .subject: values = traces.subjects
                }
                guard !values.isEmpty else {
                    swept.insert(name)
                    continue
                }
                let matching = "\(quoted(schema)).\(quoted(table)) WHERE \(quoted(column))::text = ANY($1::text[])"
                let left: Int
                do {
                    left = try await postgres.query("SELECT count(*) AS n FROM \(matching)", [.text(arrayLiteral(values))])[0]
                        .decode("n", as: Int.self)
                } catch let error as PostgresError where error.sqlState == "42P01" {
                    continue  // a table another test dropped between the listing and the count
                }
                swept.insert(name)
                guard left > 0 || Self.keptOnPurpose[name]?.required == true else { continue }
                guard let rule = Self.keptOnPurpose[name] else {
                    Issue.record("\(name) still holds \(left) row(s) of the deleted \(traces)", sourceLocation: sourceLocation)
                    continue
                }
                let outside = try await postgres.query(
                    "SELECT count(*) AS n FROM \(matching) AND NOT (\(rule.condition))", [.text(arrayLiteral(values))])[0]
                    .decode("n", as: Int.self)
                if outside > 0 {
                    Issue.record(
                        "\(name) keeps \(outside) row(s) of the deleted user that are not \(rule.why) (\(rule.condition))",
                        sourceLocation: sourceLocation)
                }
                if rule.required && left == 0 {
                    Issue.record("\(name) lacks \(rule.why) of the deleted user", sourceLocation: sourceLocation)
                }
                kept[name] = left
            }
            let missing = Self.knownColumns.subtracting(swept)
            if !missing.isEmpty {
                Issue.record("the sweep did not reach \(missing.sorted())", sourceLocation: sourceLocation)
            }
        }
        try await Self.sweepRedis(traces, url: redisURL, sourceLocation: sourceLocation)
        return kept
    }

    private static func sweepRedis(_ traces: Traces, url: String, sourceLocation: SourceLocation) async throws {
        let redis = RedisClient(configuration: RedisConfiguration(url: try RedisURL(parsing: url), poolSize: 1), logger: Logger(label: "oracle"))
        let found: Set<String>
        do {
            found = try await Self.keys(naming: [traces.userID] + traces.sessionIDs + traces.subjects, in: redis)
            await redis.shutdown()
        } catch {
            await redis.shutdown()
            throw error
        }
        let (allowed, required) = Self.keptRedisKeys(traces)
        for key in found.subtracting(allowed).sorted() {
            Issue.record("Redis still holds \(key) of the deleted \(traces)", sourceLocation: sourceLocation)
        }
        for key in required.subtracting(found).sorted() {
            Issue.record("Redis lacks \(key), the not-before of the deleted user's tokens", sourceLocation: sourceLocation)
        }
    }

    /// Every key whose name contains one of `values` (SCAN, so a busy server is not blocked).
    private static func keys(naming values: [String], in redis: RedisClient) async throws -> Set<String> {
        var found: Set<String> = []
        for value in values {
            var cursor = "0"
            repeat {
                let reply = try await redis.command("SCAN", cursor, "MATCH", "*\(value)*", "COUNT", "1000")
                guard let parts = reply.arrayValue, parts.count == 2, let next = parts[0].stringValue, let keys = parts[1].arrayValue else {
                    throw StackError.unexpected("SCAN answered \(reply)")
                }
                found.formUnion(keys.compactMap(\.stringValue))
                cursor = next
            } while cursor != "0"
        }
        return found
    }

    static func kind(of column: String) -> Kind {
        if column == "subject" { return .subject }
        if column == "session_id" || column.hasSuffix("_session_id") { return .session }
        return .user
    }

    private static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A Postgres text[] literal of `values`.
    private static func arrayLiteral(_ values: [String]) -> String {
        "{" + values.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
    }
}
