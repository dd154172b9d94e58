import ContentStateAPI
import FoundationEssentials
import Postgres
import ServiceProtocol

extension ContentStore {
    /// `table` with the flags of each of its items; items the user never touched stay all false.
    /// Alone, or with the state queries that waited in `stateLine` with it as one statement.
    func flags(user: UUID, of table: ItemFlagsTable) async throws -> ItemFlagsTable {
        guard !table.ids.isEmpty else { return table }
        var table = table
        let rows = try await stateLine.run(StateProbe(user: user, ids: table.ids), for: .all) { probes in
            try await self.run(probes)
        }
        for row in rows {
            table.set(
                ItemFlags(
                    favorited: try row.decode(1, as: Bool.self), read: try row.decode(2, as: Bool.self),
                    unliked: try row.decode(3, as: Bool.self)),
                of: try row.decode(0, as: String.self))
        }
        return table
    }

    /// `probes` as one statement (`selectFlags(probes:)`), each answered with its own rows. When
    /// the statement fails in the server, each probe runs alone, so that only a probe that fails
    /// alone fails.
    func run(_ probes: [StateProbe]) async throws -> [Result<[PostgresRow], any Error>] {
        try await runTogether(probes) { probe in
            try await postgres.query(Self.selectFlags, probe.bindings, results: .binary)
        } together: { probes in
            let rows = try await postgres.query(
                Self.selectFlags(probes: probes.count), probes.flatMap(\.bindings), results: .binary)
            return try rows.byCall(in: "probe_index", calls: probes.count).map { .success($0) }
        }
    }

    /// `item_id = ANY($2)`: one index scan that probes the primary key once per id. A join
    /// with `unnest($2)` was measured too, and was slower (pgbench, prepared, 50 ids:
    /// 10,300 against 12,300 queries/s).
    static let selectFlags = flagsPart(user: "$1", ids: "$2", probe: nil)

    /// `count` state queries as one statement: `selectFlags` once per probe, `UNION ALL`, probe
    /// n's user and ids as `$2n-1` and `$2n`, each row ending with its probe's place (1-based,
    /// `probe_index`). Each part keeps the plan `selectFlags` has alone (the key's index, once per
    /// id), where the reads' `LATERAL` fold (`ReadStatement.batch`) gave the state query a worse
    /// one; the statement's own cost (its round trip, the backend's wake-up, a snapshot and a
    /// plan's start) is paid once for them all. pgbench, 50 ids, prepared, on 2 cores: Postgres
    /// 86–109 µs a query alone, 52–70 in statements of four.
    static func selectFlags(probes count: Int) -> String { foldedSelectFlags[count] }

    private static let foldedSelectFlags = FoldedStatements(upTo: stateLineCallsPerStatement, flagsStatement(probes:))

    private static func flagsStatement(probes count: Int) -> String {
        (1...count).map { flagsPart(user: "$\(2 * $0 - 1)", ids: "$\(2 * $0)", probe: $0) }.joined(separator: "\nUNION ALL\n")
    }

    /// The flags of the ids in the parameter `ids` of the user in the parameter `user`, each
    /// row ending with `probe` as `probe_index` when there is one.
    private static func flagsPart(user: String, ids: String, probe: Int?) -> String {
        """
        SELECT s.item_id, s.favorited_at IS NOT NULL, s.read_at IS NOT NULL, s.unliked_at IS NOT NULL\(probe.map { ", \($0) AS probe_index" } ?? "")
        FROM content.item_states s WHERE s.user_id = \(user) AND s.item_id = ANY(\(ids)::text[])
        """
    }

    /// The user's changes with a version above `version`, oldest first, at most `limit`: a
    /// `ChangesPage` as JSON, written from the rows (`ChangesPage.rawJSON(rows:limit:after:)`).
    func changes(user: UUID, after version: Int64, limit: Int) async throws -> RawJSON {
        let rows = try await read(.changes, user: user, [String(version), String(limit + 1)])
        return try ChangesPage.rawJSON(rows: rows, limit: limit, after: version)
    }

    /// The times are the columns themselves: binary results carry a `timestamptz` as the
    /// server holds it, read as milliseconds by `PostgresMilliseconds`, where four
    /// `date_part`s a row cost Postgres a tenth of a page (a profile under the changes feed,
    /// 2026-11-29).
    static let selectChanges = ReadStatement("""
        SELECT s.item_id, s.favorited_at, s.nickname, s.position, s.read_at, s.unliked_at, s.updated_at, s.version
        FROM content.item_states s
        WHERE s.user_id = $1 AND s.version > $2
        ORDER BY s.version
        LIMIT $3
        """, types: ["uuid", "bigint", "bigint"], rowOrder: [.integer("version")])
}

/// One state query waiting in `ContentStore.stateLine`: its user and its distinct ids.
struct StateProbe: Sendable {
    var user: UUID
    var ids: [String]

    /// `selectFlags`' `$1` and `$2`.
    var bindings: [PostgresValue] {
        [.uuid(self.user), .text(postgresArray(self.ids))]
    }
}

/// The most state queries `ContentStore.stateLine` puts in one statement.
let stateLineCallsPerStatement = 8
