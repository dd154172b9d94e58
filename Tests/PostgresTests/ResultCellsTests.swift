import Postgres
import Testing

/// A result's rows share one buffer of cell text: each row reads its own cells, NULL and
/// empty text stay apart, and integers read from bytes as `Int(_: String)` reads them.
@Suite struct ResultCellsTests {
    @Test func eachRowReadsItsOwnCellsAmongNullsAndEmptyText() async throws {
        try await TestDatabase.withClient { client in
            let rows = try await client.query(
                """
                SELECT n, CASE WHEN n % 3 = 0 THEN NULL WHEN n % 3 = 1 THEN '' ELSE repeat('x', n) END AS text,
                       CASE WHEN n % 2 = 0 THEN NULL ELSE -n::bigint * 1000000007 END AS big, n % 2 = 0 AS even
                FROM generate_series(1, 200) n ORDER BY n
                """)
            #expect(rows.count == 200)
            for (offset, row) in rows.enumerated() {
                let n = offset + 1
                #expect(try row.decode("n", as: Int.self) == n)
                #expect(try row.decode(1, as: String?.self) == (n % 3 == 0 ? nil : n % 3 == 1 ? "" : String(repeating: "x", count: n)))
                #expect(try row.decode("big", as: Int64?.self) == (n % 2 == 0 ? nil : -Int64(n) * 1_000_000_007))
                #expect(try row.decode("even", as: Bool.self) == (n % 2 == 0))
            }
            #expect(throws: PostgresError.self) { try rows[2].decode("text", as: String.self) }
            #expect(try await client.query("SELECT 1 AS n WHERE false").isEmpty)
        }
    }

    /// Binary results read as text results do: integers of every width at their limits (into
    /// wider and narrower Swift types, refusing what does not fit), booleans, text of every text
    /// type, NULL and empty text; a type binary results do not read is an error, not garbage.
    @Test func binaryResultsReadAsTextResultsDo() async throws {
        try await TestDatabase.withClient { client in
            let sql = """
                SELECT n, (-32768 + n)::smallint AS small, (2147483647 - n)::integer AS int, (-9223372036854775807 - 1 + n)::bigint AS big,
                       n % 2 = 0 AS even, CASE WHEN n % 3 = 0 THEN NULL ELSE n END::bigint AS maybe,
                       CASE WHEN n = 1 THEN '' ELSE 'é ' || n END AS text, ('v' || n)::varchar AS v, ('c' || n)::char(3) AS c,
                       ('n' || n)::name AS name, gen_random_uuid() AS id, now() AS at
                FROM generate_series(1, 50) n ORDER BY n
                """
            let text = try await client.query(sql)
            let binary = try await client.query(sql, results: .binary)
            #expect(binary.count == 50)
            for (t, b) in zip(text, binary) {
                #expect(try b.decode("n", as: Int.self) == t.decode("n", as: Int.self))
                #expect(try b.decode("small", as: Int16.self) == t.decode("small", as: Int16.self))
                #expect(try b.decode("small", as: Int64.self) == t.decode("small", as: Int64.self))
                #expect(try b.decode("int", as: Int32.self) == t.decode("int", as: Int32.self))
                #expect(try b.decode("big", as: Int64.self) == t.decode("big", as: Int64.self))
                #expect(try b.decode("even", as: Bool.self) == t.decode("even", as: Bool.self))
                #expect(try b.decode("maybe", as: Int64?.self) == t.decode("maybe", as: Int64?.self))
                for column in ["text", "v", "c", "name"] {
                    #expect(try b.decode(column, as: String.self) == t.decode(column, as: String.self))
                }
                #expect(throws: PostgresError.self) { try b.decode("big", as: Int16.self) }
                #expect(throws: PostgresError.self) { try b.decode("big", as: String.self) }
                #expect(throws: PostgresError.self) { try b.decode("id", as: String.self) }
                #expect(throws: PostgresError.self) { try b.decode("at", as: Int64.self) }
                #expect(throws: PostgresError.self) { try b.decode("text", as: Int64.self) }
            }
            #expect(try binary[0].decode("small", as: Int16.self) == -32767)
            #expect(try binary[0].decode("big", as: Int64.self) == Int64.min + 1)
            #expect(try binary[0].decode("text", as: String.self) == "")
            #expect(try binary[2].decode("maybe", as: Int64?.self) == nil)
            #expect(throws: PostgresError.self) { try binary[2].decode("maybe", as: Int64.self) }
        }
    }

    /// `timestamptz` and `timestamp` cells of binary results read as milliseconds since 1970,
    /// the nearest and a half up (`extract` in `numeric`, exact): before 1970, between 1970 and
    /// the server's epoch (2000), after it, halves and microseconds either side of them; NULL
    /// as nil; `infinity`, a text result and another type are errors.
    @Test func timesReadAsMillisecondsSince1970() async throws {
        try await TestDatabase.withClient { client in
            let sql = """
                SELECT t, t AT TIME ZONE 'UTC' AS local, floor(extract(epoch FROM t) * 1000 + 0.5)::bigint AS expected
                FROM unnest(ARRAY['1969-12-31 23:59:59.9995+00', '1969-12-31 23:59:59.999499+00', '1900-02-28 12:00:00.000001+00',
                    '1970-01-01 00:00:00+00', '1985-06-01 00:00:00.0015+00', '1999-12-31 23:59:59.999999+00', '2000-01-01 00:00:00+00',
                    '2000-01-01 00:00:00.000499+00', '2026-11-29 20:41:07.123+00', '2026-11-29 20:41:07.1225+00',
                    '2255-06-01 00:00:00.122999+00']::timestamptz[]) t
                """
            let rows = try await client.query(sql, results: .binary)
            #expect(rows.count == 11)
            for row in rows {
                let expected = try row.decode("expected", as: Int64.self)
                #expect(try row.decode("t", as: PostgresMilliseconds.self).value == expected)
                #expect(try row.decode("local", as: PostgresMilliseconds?.self)?.value == expected)
            }
            #expect(try rows[8].decode("t", as: PostgresMilliseconds.self).value == 1_795_984_867_123)
            #expect(try rows[9].decode("t", as: PostgresMilliseconds.self).value == 1_795_984_867_123)
            let odd = try await client.query(
                "SELECT NULL::timestamptz AS missing, 'infinity'::timestamptz AS later, '-infinity'::timestamptz AS earlier, 5::bigint AS n",
                results: .binary)
            #expect(try odd[0].decode("missing", as: PostgresMilliseconds?.self) == nil)
            #expect(throws: PostgresError.self) { try odd[0].decode("missing", as: PostgresMilliseconds.self) }
            #expect(throws: PostgresError.self) { try odd[0].decode("later", as: PostgresMilliseconds.self) }
            #expect(throws: PostgresError.self) { try odd[0].decode("earlier", as: PostgresMilliseconds.self) }
            #expect(throws: PostgresError.self) { try odd[0].decode("n", as: PostgresMilliseconds.self) }
            let text = try await client.query("SELECT now() AS at")
            #expect(throws: PostgresError.self) { try text[0].decode("at", as: PostgresMilliseconds.self) }
        }
    }

    @Test func integersFromBytesMatchTheStandardLibrary() {
        let samples = [
            "0", "7", "-0", "+5", "-", "+", "", "12a", " 1", "1 ", "00042", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "32767", "32768", "-32768", "-32769", "2147483647", "2147483648",
            "99999999999999999999999", "1.5", "1e3", "٣",
        ]
        for text in samples {
            var bytes = Array(text.utf8)
            bytes.withUnsafeMutableBytes { buffer in
                let raw = UnsafeRawBufferPointer(buffer)
                #expect(PostgresInteger.parse(raw) as Int64? == Int64(text), "\(text)")
                #expect(PostgresInteger.parse(raw) as Int32? == Int32(text), "\(text)")
                #expect(PostgresInteger.parse(raw) as Int16? == Int16(text), "\(text)")
                #expect(PostgresInteger.parse(raw) as Int? == Int(text), "\(text)")
            }
        }
    }
}
