import Postgres
import Testing

/// Server errors map to `PostgresError` cases callers can act on.
@Suite struct ErrorTests {
    @Test func uniqueViolationIsRecognisedWithItsConstraintName() async throws {
        try await TestDatabase.withClient { client in
            let table = TestDatabase.uniqueName("unique")
            try await client.execute("CREATE TABLE \(table) (email text CONSTRAINT \(table)_email_key UNIQUE)")
            try await client.execute("INSERT INTO \(table) VALUES ($1)", ["a@example.com"])
            do {
                try await client.execute("INSERT INTO \(table) VALUES ($1)", ["a@example.com"])
                Issue.record("second insert succeeded")
            } catch let error as PostgresError {
                #expect(error == .uniqueViolation(constraint: "\(table)_email_key"))
                #expect(error.isUniqueViolation)
                #expect(error.sqlState == "23505")
            }
            // The connection is still fine after the error.
            #expect(try await client.query("SELECT * FROM \(table)").count == 1)
            try await client.execute("DROP TABLE \(table)")
        }
    }

    @Test func otherServerErrorsCarryTheirSQLState() async throws {
        try await TestDatabase.withClient { client in
            for (sql, state) in [("SELEC 1", "42601"), ("SELECT * FROM no_such_table_here", "42P01"), ("SELECT 1/0", "22012")] {
                do {
                    _ = try await client.query(sql)
                    Issue.record("\(sql) succeeded")
                } catch let error as PostgresError {
                    #expect(error.sqlState == state)
                    #expect(!error.isUniqueViolation)
                }
            }
        }
    }

    @Test func connectionFailureNamesNeitherPasswordNorURL() async throws {
        let password = "s3cret-Passw0rd"
        let url = "postgres://someone:\(password)@127.0.0.1:1/db?sslmode=disable"
        try await TestDatabase.withClient(url: url) { client in
            do {
                try await client.ping()
                Issue.record("connected to port 1")
            } catch let error as PostgresError {
                guard case .connectionFailed = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(!"\(error)".contains(password))
                #expect(!"\(error)".contains(url))
            }
        }
    }
}
