import Postgres
import Testing

/// `withTransaction` commits all or nothing, and scoped connections always come back.
@Suite struct TransactionTests {
    struct Boom: Error {}

    @Test func transactionRollsBackWhenBodyThrows() async throws {
        try await TestDatabase.withClient { client in
            let table = TestDatabase.uniqueName("rollback")
            try await client.execute("CREATE TABLE \(table) (id int)")
            await #expect(throws: Boom.self) {
                try await client.withTransaction { connection in
                    try await connection.execute("INSERT INTO \(table) VALUES (1)")
                    throw Boom()
                }
            }
            #expect(try await client.query("SELECT * FROM \(table)").isEmpty)
            try await client.execute("DROP TABLE \(table)")
        }
    }

    @Test func transactionCommitsWhenBodyReturns() async throws {
        try await TestDatabase.withClient { client in
            let table = TestDatabase.uniqueName("commit")
            try await client.execute("CREATE TABLE \(table) (id int)")
            let inserted = try await client.withTransaction { connection in
                try await connection.execute("INSERT INTO \(table) VALUES (1), (2)")
            }
            #expect(inserted == 2)
            #expect(try await client.query("SELECT * FROM \(table)").count == 2)
            try await client.execute("DROP TABLE \(table)")
        }
    }

    @Test func commitAfterASwallowedStatementErrorThrowsInsteadOfReportingSuccess() async throws {
        try await TestDatabase.withClient { client in
            let table = TestDatabase.uniqueName("swallowed")
            try await client.execute("CREATE TABLE \(table) (id int)")
            await #expect(throws: PostgresError.query(
                sqlState: "25P02", message: "transaction was rolled back after a failed statement")
            ) {
                try await client.withTransaction { connection in
                    try await connection.execute("INSERT INTO \(table) VALUES (1)")
                    _ = try? await connection.execute("SELECT 1/0")
                }
            }
            #expect(try await client.query("SELECT * FROM \(table)").isEmpty)
            try await client.execute("DROP TABLE \(table)")
        }
    }

    @Test func connectionComesBackWhenBodyThrows() async throws {
        try await TestDatabase.withClient(poolSize: 1, acquireTimeout: .seconds(2)) { client in
            for _ in 0..<3 {
                await #expect(throws: Boom.self) {
                    try await client.withConnection { _ in throw Boom() }
                }
            }
            try await client.ping()
        }
    }

    @Test func connectionLeftInsideATransactionIsClosedNotReused() async throws {
        try await TestDatabase.withClient(poolSize: 1) { client in
            let table = TestDatabase.uniqueName("abandoned")
            try await client.execute("CREATE TABLE \(table) (id int)")
            let firstPID = try await client.withConnection { connection in
                try await connection.execute("BEGIN")
                try await connection.execute("INSERT INTO \(table) VALUES (1)")
                return try #require(try await connection.query("SELECT pg_backend_pid() AS pid").first).decode("pid", as: Int.self)
            }
            let secondPID = try #require(try await client.query("SELECT pg_backend_pid() AS pid").first).decode("pid", as: Int.self)
            #expect(firstPID != secondPID)
            #expect(try await client.query("SELECT * FROM \(table)").isEmpty)
            try await client.execute("DROP TABLE \(table)")
        }
    }
}
