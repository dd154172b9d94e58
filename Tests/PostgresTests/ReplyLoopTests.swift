import Postgres
import TestSupport
import Testing

/// A statement already prepared on its connection is sent from the caller's thread and its reply
/// read by the client's reply loop (epoll); others go through the thread pool. Both give the
/// same answers, and a reply that never comes because the server dropped the connection fails
/// the caller rather than hanging it.
@Suite struct ReplyLoopTests {
    @Test func aBackendTerminatedWhileItsReplyIsAwaitedFailsTheCallerAndThePoolRecovers() async throws {
        try await TestDatabase.withClient(poolSize: 1) { client in
            try await TestDatabase.withClient(poolSize: 1) { admin in
                let sleep = "SELECT pg_backend_pid() AS pid, pg_sleep($1::float8) IS NULL AS slept"
                // The first run prepares the statement (thread pool); the next ones are sent at once.
                let pid = try await client.query(sleep, [.double(0)])[0].decode("pid", as: Int.self)
                let start = ContinuousClock.now
                async let cut: Void = {
                    // Once the long statement runs, its server process is ended under it.
                    try await waitUntil("the 300 s statement runs") {
                        let running = try await admin.query(
                            "SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1::int AND state = 'active'", [.int(pid)])
                        return try running[0].decode("n", as: Int.self) == 1
                    }
                    let terminated = try await admin.query("SELECT pg_terminate_backend($1::int) AS done", [.int(pid)])
                    #expect(try terminated[0].decode("done", as: Bool.self))
                }()
                await #expect(throws: PostgresError.self) { try await client.query(sleep, [.double(300)]) }
                try await cut
                // Far sooner than the statement would have ended (generous: a loaded machine is slow).
                #expect(ContinuousClock.now - start < .seconds(120))
                // The dropped connection was discarded; a new one answers.
                let next = try await client.query(sleep, [.double(0)])[0].decode("pid", as: Int.self)
                #expect(next != pid)
            }
        }
    }

    @Test func largeParametersAndRepeatedStatementsReadBackTheSame() async throws {
        try await TestDatabase.withClient(poolSize: 2) { client in
            let sql = "SELECT length($1::text) AS n, md5($1::text) AS digest, $2::int AS tag"
            let small = "ü-small"
            let large = String(repeating: "large-parameter ", count: 8_000)  // 128 KB: sent on the pool
            for round in 0..<4 {
                for text in [small, large] {
                    let row = try await client.query(sql, [.text(text), .int(round)])[0]
                    #expect(try row.decode("n", as: Int.self) == text.count)
                    #expect(try row.decode("tag", as: Int.self) == round)
                    let expected = try await client.query("SELECT md5($1::text) AS digest", [.text(text)])[0]
                    #expect(try row.decode("digest", as: String.self) == expected.decode("digest", as: String.self))
                }
            }
        }
    }

    @Test func concurrentStatementsOnEveryConnectionGetTheirOwnReplies() async throws {
        try await TestDatabase.withClient(poolSize: 4) { client in
            let sql = "SELECT $1::int * 3 AS tripled, pg_sleep(0.001) IS NULL AS slept"
            try await withThrowingTaskGroup(of: Void.self) { group in
                for value in 0..<400 {
                    group.addTask {
                        let row = try await client.query(sql, [.int(value)])[0]
                        #expect(try row.decode("tripled", as: Int.self) == value * 3)
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

/// The reply loop's thread says what it is in a thread list (`top -H`, `perf`), rather than
/// carrying the name of the libdispatch worker that started it.
@Suite struct ReplyLoopThreadTests {
    @Test func theReplyThreadIsNamed() async throws {
        try await TestDatabase.withClient(poolSize: 1) { client in
            _ = try await client.query("SELECT 1 AS one")
            try await waitUntil("a thread named pg-replies") { try currentThreadNames().contains("pg-replies") }
        }
    }
}
