import Postgres
import Testing

/// What every connection of a client sets for its session before its first statement.
@Suite struct SessionSettingsTests {
    /// Times in UTC, dates in ISO form, and no parallel plans: a statement whose cost crosses
    /// the planner's threshold (the folded state queries, planned for their values) would
    /// otherwise start worker processes for each run.
    @Test func everyConnectionPlansWithoutParallelWorkersAndSpeaksUTC() async throws {
        try await TestDatabase.withClient(poolSize: 2) { client in
            // Both pool connections, as two statements hold one each at once.
            async let first = client.query(
                "SELECT current_setting('max_parallel_workers_per_gather') AS workers, current_setting('TimeZone') AS zone, pg_sleep(0.2) IS NULL AS slept")
            async let second = client.query(
                "SELECT current_setting('max_parallel_workers_per_gather') AS workers, current_setting('DateStyle') AS style, pg_backend_pid() AS pid")
            let (a, b) = try await (first, second)
            #expect(try a[0].decode("workers", as: String.self) == "0")
            #expect(try a[0].decode("zone", as: String.self) == "UTC")
            #expect(try b[0].decode("workers", as: String.self) == "0")
            #expect(try b[0].decode("style", as: String.self) == "ISO, MDY")
            // A scan the planner would split, costs made to favour it: no Gather, and one as
            // soon as the session takes Postgres's own setting back.
            let table = TestDatabase.uniqueName("parallel_probe")
            try await client.withConnection { connection in
                _ = try await connection.execute("CREATE TABLE \(table) AS SELECT g AS n FROM generate_series(1, 2000) g")
                _ = try await connection.execute("ANALYZE \(table)")
                for setting in ["parallel_setup_cost", "parallel_tuple_cost", "min_parallel_table_scan_size"] {
                    _ = try await connection.execute("SET \(setting) TO 0")
                }
                let plan = { () async throws -> String in
                    try await connection.query("EXPLAIN SELECT count(*) FROM \(table)").map { try $0.decode(0, as: String.self) }
                        .joined(separator: "\n")
                }
                let ours = try await plan()
                #expect(!ours.contains("Gather"), "\(ours)")
                _ = try await connection.execute("RESET max_parallel_workers_per_gather")
                let postgres = try await plan()
                #expect(postgres.contains("Gather"), "\(postgres)")
                _ = try await connection.execute("DROP TABLE \(table)")
            }
        }
    }
}
