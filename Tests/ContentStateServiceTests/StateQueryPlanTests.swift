import Foundation
@testable import Postgres
import TestSupport
import Testing
@testable import ContentStateService

/// The state query's plan for a user with many rows among many users with a few: the ids are
/// looked up by the key (`item_id = ANY` in the index condition), not filtered out of every row
/// the user has.
@Suite struct StateQueryPlanTests {
    /// The option is read by name (`pg_options_to_table`), not as the whole `attoptions` text:
    /// Postgres keeps entries of its own beside ours (15.20 adds `pg_attver=<n>`).
    @Test func theMigrationTellsPostgresThatAUserMayHoldManyRows() async throws {
        let service = try await TestService.standard()
        let rows = try await service.postgres.query(
            """
            SELECT o.option_value::float8 AS n_distinct, a.attstattarget
            FROM pg_attribute a, pg_options_to_table(a.attoptions) o
            WHERE a.attrelid = 'content.item_states'::regclass AND a.attname = 'user_id'
              AND o.option_name = 'n_distinct'
            """)
        #expect(rows.count == 1, "user_id has no n_distinct option")
        #expect(try rows.first?.decode("n_distinct", as: Double.self) == -0.0001)
        #expect(try rows.first?.decode("attstattarget", as: Int.self) == 1)
    }

    /// The migration analyzes a table with rows, so that the estimate holds at once, and leaves
    /// an empty one unanalyzed (`reltuples` -1): analyzed empty, Postgres planned sequential scans
    /// that the write functions' prepared plans kept while the table grew.
    @Test func theMigrationAnalyzesATableWithRowsAndLeavesAnEmptyOneUnanalyzed() async throws {
        let service = try await TestService.standard()
        let reltuples = try await service.postgres.inRolledBackTransaction { connection in
            try await connection.execute("CREATE SCHEMA state_plan")
            var reltuples: [Double] = []
            for rows in [0, 100] {
                try await connection.execute("DROP TABLE IF EXISTS state_plan.item_states")
                try await connection.execute("CREATE TABLE state_plan.item_states (LIKE content.item_states INCLUDING ALL)")
                try await connection.execute(
                    """
                    INSERT INTO state_plan.item_states (user_id, item_id, updated_at, version)
                    SELECT gen_random_uuid(), 'item-' || v, now(), v FROM generate_series(1, $1::integer) v
                    """, [.int(rows)])
                try await Self.runMigration5OnTheCopy(connection)
                let row = try await connection.query(
                    "SELECT reltuples::float8 AS reltuples FROM pg_class WHERE oid = 'state_plan.item_states'::regclass")
                reltuples.append(try row[0].decode("reltuples", as: Double.self))
            }
            return reltuples
        }
        #expect(reltuples == [-1, 100])
    }

    /// 30,000 users with three rows each and one with 20,000, then ANALYZE: without the
    /// migration's estimate the generic plan (the one a prepared statement keeps) scans the
    /// heavy user's rows and filters them; with it, it probes the key once per id.
    @Test func aHeavyUsersStateQueryProbesTheKeyAmongManyLightUsers() async throws {
        let service = try await TestService.standard()
        let withoutEstimate = try await Self.genericPlan(service, estimate: false)
        #expect(withoutEstimate.contains("Filter: (item_id = ANY"), "the control no longer shows the problem:\n\(withoutEstimate)")
        let withEstimate = try await Self.genericPlan(service, estimate: true)
        let indexConditions = withEstimate.split(separator: "\n").filter { $0.contains("Index Cond:") }
        #expect(indexConditions.contains { $0.contains("item_id = ANY") }, "\(withEstimate)")
        #expect(!withEstimate.contains("Filter: (item_id = ANY"), "\(withEstimate)")
    }

    /// The plan of `ContentStore.selectFlags` for the heavy user, on a copy of the table
    /// (the shared test database holds other tests' rows), with or without migration 5.
    static func genericPlan(_ service: TestService, estimate: Bool) async throws -> String {
        try await service.postgres.inRolledBackTransaction { connection in
            try await connection.execute("CREATE SCHEMA state_plan")
            try await connection.execute("CREATE TABLE state_plan.item_states (LIKE content.item_states INCLUDING ALL)")
            if estimate { try await Self.runMigration5OnTheCopy(connection) }
            try await connection.execute(
                """
                INSERT INTO state_plan.item_states (user_id, item_id, favorited_at, updated_at, version)
                SELECT user_id, 'item-' || (random() * 1e12)::bigint, now(), now(), v
                FROM (SELECT gen_random_uuid() AS user_id FROM generate_series(1, 30000)) users, generate_series(1, 3) v
                """)
            try await connection.execute(
                """
                INSERT INTO state_plan.item_states (user_id, item_id, read_at, updated_at, version)
                SELECT '00000000-0000-0000-0000-00000000000a', 'item-' || v, now(), now(), v FROM generate_series(1, 20000) v
                """)
            try await connection.execute("ANALYZE state_plan.item_states")
            try await connection.execute(
                "PREPARE state_query(uuid, text) AS \(ContentStore.selectFlags.replacingOccurrences(of: "content.", with: "state_plan."))")
            try await connection.execute("SET LOCAL plan_cache_mode = force_generic_plan")
            let ids = "{" + (0..<50).map { "item-\($0)" }.joined(separator: ",") + "}"
            let rows = try await connection.query(
                "EXPLAIN EXECUTE state_query('00000000-0000-0000-0000-00000000000a', '\(ids)')")
            // A prepared statement outlives the transaction; the connection goes back to the pool.
            try await connection.execute("DEALLOCATE state_query")
            return try rows.map { try $0.decode(0, as: String.self) }.joined(separator: "\n")
        }
    }

    /// Content migration 5, run on the copy `state_plan.item_states` instead of `content.item_states`.
    static func runMigration5OnTheCopy(_ connection: PostgresConnection) async throws {
        let migration = try #require(ContentStateMigrations.all.first { $0.version == 5 })
        try await connection.runScript(migration.sql.replacingOccurrences(of: "content.", with: "state_plan."))
    }
}
