import Postgres
import Testing

/// Values travel as bind parameters, never as SQL text.
@Suite struct ParameterBindingTests {
    @Test func injectionStringsRoundTripAsPlainData() async throws {
        try await TestDatabase.withClient { client in
            let table = TestDatabase.uniqueName("injection")
            try await client.execute("CREATE TABLE \(table) (id int PRIMARY KEY, note text)")
            let hostile = [
                "'; DROP TABLE \(table); --", "\"; DROP TABLE x; --", "' OR '1'='1", "$1", "\\x00", "E'\\\\'",
            ]
            for (id, note) in hostile.enumerated() {
                try await client.execute("INSERT INTO \(table) (id, note) VALUES ($1, $2)", [.int(id), .text(note)])
            }
            let rows = try await client.query("SELECT note FROM \(table) ORDER BY id")
            #expect(try rows.map { try $0.decode("note", as: String.self) } == hostile)
            let matched = try await client.query("SELECT id FROM \(table) WHERE note = $1", [.text(hostile[2])])
            #expect(try matched.map { try $0.decode("id", as: Int.self) } == [2])
            try await client.execute("DROP TABLE \(table)")
        }
    }

    @Test func nullsAndNilOptionalsBindAsNullAndReadBackAsNil() async throws {
        try await TestDatabase.withClient { client in
            let missing: String? = nil
            let present: Int? = 7
            let rows = try await client.query(
                "SELECT $1::text AS a, $2::int AS b, $3::uuid AS c, $4::int AS d",
                [.null, missing.postgresValue, nil, PostgresValue(present)])
            let row = try #require(rows.first)
            #expect(try row.decode("a", as: String?.self) == nil)
            #expect(try row.decode("b", as: Int?.self) == nil)
            #expect(try row.decode("c", as: String?.self) == nil)
            #expect(try row.decode("d", as: Int?.self) == 7)
            #expect(try row.decode(3, as: Int.self) == 7)
        }
    }

    @Test func readingNullAsNonOptionalThrowsDecodingError() async throws {
        try await TestDatabase.withClient { client in
            let row = try #require(try await client.query("SELECT NULL::int AS n").first)
            #expect(throws: PostgresError.self) { try row.decode("n", as: Int.self) }
            #expect(throws: PostgresError.self) { try row.decode("absent", as: Int?.self) }
            #expect(throws: PostgresError.self) { try row.decode(5, as: Int?.self) }
        }
    }

    @Test func textHoldingNulByteIsRejectedNotTruncated() async throws {
        try await TestDatabase.withClient { client in
            await #expect(throws: PostgresError.invalidParameter(index: 1, message: "text contains a NUL byte")) {
                try await client.query("SELECT $1::text", [.text("abc\u{0}def")])
            }
        }
    }

    @Test func executeReportsAffectedRows() async throws {
        try await TestDatabase.withClient { client in
            let table = TestDatabase.uniqueName("affected")
            try await client.execute("CREATE TABLE \(table) (id int)")
            #expect(try await client.execute("INSERT INTO \(table) SELECT generate_series(1, 5)") == 5)
            #expect(try await client.execute("UPDATE \(table) SET id = id + 1 WHERE id > $1", [3]) == 2)
            #expect(try await client.execute("DELETE FROM \(table)") == 5)
            try await client.execute("DROP TABLE \(table)")
        }
    }
}
