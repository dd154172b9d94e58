import Postgres
import Testing

/// Statements are prepared once per connection and reused; a statement the server forgot or a
/// table changed under it is prepared again without the caller noticing.
@Suite struct PreparedStatementTests {
    private static let countPrepared = "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = $1"

    @Test func aStatementIsPreparedOnceAndReusedOnItsConnection() async throws {
        try await TestDatabase.withClient(poolSize: 1) { client in
            let sql = "SELECT $1::int + 1 AS next"
            for value in 1...3 {
                let next = try await client.query(sql, [.int(value)])[0].decode("next", as: Int.self)
                #expect(next == value + 1)
            }
            let prepared = try await client.query(Self.countPrepared, [.text(sql)])[0].decode("n", as: Int.self)
            #expect(prepared == 1)
        }
    }

    @Test func statementsDeallocatedByTheServerArePreparedAgain() async throws {
        try await TestDatabase.withClient(poolSize: 1) { client in
            let sql = "SELECT $1::text || '!' AS shout"
            let shout = { (text: String) in try await client.query(sql, [.text(text)])[0].decode("shout", as: String.self) }
            #expect(try await shout("a") == "a!")
            try await client.execute("DEALLOCATE ALL")
            #expect(try await shout("b") == "b!")
            try await client.execute("DISCARD ALL")
            #expect(try await shout("c") == "c!")
        }
    }

    @Test func aTableChangedUnderAPreparedStatementIsReadWithItsNewColumns() async throws {
        try await TestDatabase.withClient(poolSize: 1) { client in
            let table = TestDatabase.uniqueName("altered")
            try await client.execute("CREATE TABLE \(table) (a int)")
            try await client.execute("INSERT INTO \(table) VALUES (1)")
            #expect(try await client.query("SELECT * FROM \(table)")[0].columnNames == ["a"])
            try await client.execute("ALTER TABLE \(table) ADD COLUMN b int DEFAULT 2")
            let row = try await client.query("SELECT * FROM \(table)")[0]
            #expect(row.columnNames == ["a", "b"])
            let b = try row.decode("b", as: Int.self)
            #expect(b == 2)
            try await client.execute("DROP TABLE \(table)")
        }
    }

    @Test func theSameTextBoundWithNullAndWithByteaRunsBoth() async throws {
        try await TestDatabase.withClient(poolSize: 1) { client in
            let sql = "SELECT $1::bytea IS NULL AS missing"
            var answers: [Bool] = []
            for value: PostgresValue in [.null, .bytea([1, 2]), .null] {
                answers.append(try await client.query(sql, [value])[0].decode("missing", as: Bool.self))
            }
            #expect(answers == [true, false, true])
        }
    }

    @Test func aStatementTheServerRejectsIsNotRemembered() async throws {
        try await TestDatabase.withClient(poolSize: 1) { client in
            let table = TestDatabase.uniqueName("later")
            let sql = "SELECT count(*) AS n FROM \(table)"
            await #expect(throws: PostgresError.self) { try await client.query(sql) }
            try await client.execute("CREATE TABLE \(table) (a int)")
            let count = try await client.query(sql)[0].decode("n", as: Int.self)
            #expect(count == 0)
            try await client.execute("DROP TABLE \(table)")
        }
    }

    @Test func aForgottenStatementInsideATransactionFailsThatTransactionOnly() async throws {
        try await TestDatabase.withClient(poolSize: 1) { client in
            let sql = "SELECT $1::int * 2 AS double"
            _ = try await client.query(sql, [1])
            await #expect(throws: PostgresError.self) {
                try await client.withTransaction { connection in
                    try await connection.execute("DEALLOCATE ALL")
                    return try await connection.query(sql, [2]).count
                }
            }
            let double = try await client.query(sql, [3])[0].decode("double", as: Int.self)
            #expect(double == 6)
        }
    }
}
