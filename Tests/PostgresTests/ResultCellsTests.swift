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
