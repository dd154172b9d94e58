import Postgres
import TestSupport
import Testing

/// A client outlives a server restart; a transaction cut by one throws and commits nothing.
/// Each test restarts a private server, never the shared one.
@Suite struct RestartRecoveryTests {
    @Test func clientWorksAgainAfterTheServerRestarts() async throws {
        try await PrivatePostgresServer.with { server in
            try await TestDatabase.withClient(poolSize: 2, url: server.url) { client in
                // Open both pooled connections.
                async let first = client.query("SELECT pg_sleep(0.05)")
                async let second = client.query("SELECT pg_sleep(0.05)")
                _ = try await (first, second)
                let before = try await client.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int.self)

                try await server.restart()

                var outcomes: [Result<Int, any Error>] = []
                for _ in 0..<6 {
                    do {
                        let rows = try await client.query("SELECT pg_backend_pid() AS pid")
                        outcomes.append(.success(try rows[0].decode("pid", as: Int.self)))
                    } catch {
                        outcomes.append(.failure(error))
                    }
                }
                // Only the first call may fail, and only as a lost connection.
                if case .failure(let error) = outcomes[0] {
                    #expect(error as? PostgresError == .connectionLost)
                }
                for outcome in outcomes.dropFirst() {
                    let pid = try outcome.get()
                    #expect(pid != before)
                }
            }
        }
    }

    @Test func transactionCutByARestartThrowsAndCommitsNothing() async throws {
        try await PrivatePostgresServer.with { server in
            try await TestDatabase.withClient(poolSize: 2, url: server.url) { client in
                try await client.execute("CREATE TABLE cut (id int)")
                await #expect(throws: PostgresError.connectionLost) {
                    try await client.withTransaction { connection in
                        try await connection.execute("INSERT INTO cut VALUES (1)")
                        try await server.restart()
                    }
                }
                #expect(try await client.query("SELECT * FROM cut").isEmpty)
            }
        }
    }
}
