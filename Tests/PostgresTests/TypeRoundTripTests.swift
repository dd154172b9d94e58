import Foundation
import Postgres
import Testing

/// Every supported type survives a trip to the server and back.
@Suite struct TypeRoundTripTests {
    @Test func uuidRoundTrips() async throws {
        try await TestDatabase.withClient { client in
            let id = UUID()
            let row = try #require(try await client.query("SELECT $1::uuid AS v, $1::uuid::text AS t", [.uuid(id)]).first)
            #expect(try row.decode("v", as: UUID.self) == id)
            #expect(try row.decode("t", as: String.self) == id.uuidString.lowercased())
        }
    }

    @Test func unicodeTextRoundTrips() async throws {
        try await TestDatabase.withClient { client in
            for text in ["", "plain", "Grüße, 世界 👋🏽", "e\u{301} vs é", "line\nbreak\ttab \\ back'slash\"quote"] {
                let row = try #require(try await client.query("SELECT $1::text AS v, length($1::text) AS n", [.text(text)]).first)
                #expect(try row.decode("v", as: String.self) == text)
                #expect(try row.decode("n", as: Int.self) == text.unicodeScalars.count)
            }
        }
    }

    @Test func boolRoundTrips() async throws {
        try await TestDatabase.withClient { client in
            let row = try #require(try await client.query("SELECT $1::bool AS a, $2::bool AS b", [true, .bool(false)]).first)
            #expect(try row.decode("a", as: Bool.self) == true)
            #expect(try row.decode("b", as: Bool.self) == false)
        }
    }

    @Test func integersRoundTripThroughInt2Int4AndInt8() async throws {
        try await TestDatabase.withClient { client in
            let row = try #require(
                try await client.query(
                    "SELECT $1::int2 AS small, $2::int4 AS regular, $3::int8 AS big, $4::int8 AS low",
                    [.int(Int(Int16.min)), .int(Int(Int32.max)), .int(Int.max), .int(Int.min)]
                ).first)
            #expect(try row.decode("small", as: Int.self) == Int(Int16.min))
            #expect(try row.decode("small", as: Int16.self) == Int16.min)
            #expect(try row.decode("regular", as: Int32.self) == Int32.max)
            #expect(try row.decode("big", as: Int64.self) == Int64.max)
            #expect(try row.decode("low", as: Int.self) == Int.min)
            #expect(throws: PostgresError.self) { try row.decode("big", as: Int32.self) }
        }
    }

    @Test func doubleRoundTripsExactly() async throws {
        try await TestDatabase.withClient { client in
            for value in [0.1, -1e-300, Double.pi, 1.7976931348623157e308, Double.infinity, -Double.infinity] {
                let row = try #require(try await client.query("SELECT $1::float8 AS v", [.double(value)]).first)
                #expect(try row.decode("v", as: Double.self) == value)
            }
            let nan = try #require(try await client.query("SELECT $1::float8 AS v", [.double(.nan)]).first)
            #expect(try nan.decode("v", as: Double.self).isNaN)
        }
    }

    @Test func timestamptzKeepsMicroseconds() async throws {
        try await TestDatabase.withClient { client in
            let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
            let row = try #require(
                try await client.query("SELECT $1::timestamptz AS v, $1::timestamptz::text AS t", [.timestamp(date)]).first)
            #expect(try row.decode("t", as: String.self) == "2023-11-14 22:13:20.123456+00")
            let decoded = try row.decode("v", as: Date.self)
            #expect(abs(decoded.timeIntervalSince(date)) < 0.000_001)
        }
    }

    @Test func serverTimestampsWithOffsetsAndDatesBefore1970Decode() async throws {
        try await TestDatabase.withClient { client in
            let row = try #require(
                try await client.query("""
                    SELECT '2024-02-29 23:59:59.5+05:30'::timestamptz AS offset_fraction,
                           '1969-07-20 20:17:40+00'::timestamptz AS moon,
                           '2024-01-01 00:00:00'::timestamp AS naive
                    """
                ).first)
            #expect(try row.decode("offset_fraction", as: Date.self) == Date(timeIntervalSince1970: 1_709_231_399.5))
            #expect(try row.decode("moon", as: Date.self) == Date(timeIntervalSince1970: -14_182_940))
            #expect(try row.decode("naive", as: Date.self) == Date(timeIntervalSince1970: 1_704_067_200))
        }
    }

    @Test func byteaWithZeroBytesRoundTrips() async throws {
        try await TestDatabase.withClient { client in
            for bytes: [UInt8] in [Array(0...255), [0, 0, 0], [], [0x5c, 0x78, 0x30, 0x30]] {
                let row = try #require(
                    try await client.query("SELECT $1::bytea AS v, octet_length($1::bytea) AS n", [.bytea(bytes)]).first)
                #expect(try row.decode("v", as: [UInt8].self) == bytes)
                #expect(try row.decode("n", as: Int.self) == bytes.count)
            }
        }
    }

    @Test func everyTypeRoundTripsThroughATableRow() async throws {
        try await TestDatabase.withClient { client in
            let table = TestDatabase.uniqueName("types")
            try await client.execute("""
                CREATE TABLE \(table) (
                    id uuid PRIMARY KEY, name text, flag bool, small int4, big int8,
                    ratio float8, at timestamptz, blob bytea, missing text
                )
                """)
            let id = UUID()
            let at = Date(timeIntervalSince1970: 1_234_567_890.000_001)
            let nickname: String? = nil
            try await client.execute(
                "INSERT INTO \(table) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                [.uuid(id), "Zoë", true, 42, .int(1 << 40), 2.5, .timestamp(at), .bytea([0, 1, 0]), nickname.postgresValue])
            let row = try #require(try await client.query("SELECT * FROM \(table) WHERE id = $1", [.uuid(id)]).first)
            #expect(try row.decode("id", as: UUID.self) == id)
            #expect(try row.decode("name", as: String?.self) == "Zoë")
            #expect(try row.decode("flag", as: Bool.self))
            #expect(try row.decode("small", as: Int.self) == 42)
            #expect(try row.decode("big", as: Int64.self) == 1 << 40)
            #expect(try row.decode("ratio", as: Double.self) == 2.5)
            #expect(abs(try row.decode("at", as: Date.self).timeIntervalSince(at)) < 0.000_001)
            #expect(try row.decode("blob", as: [UInt8].self) == [0, 1, 0])
            #expect(try row.decode("missing", as: String?.self) == nil)
            #expect(row.columnNames == ["id", "name", "flag", "small", "big", "ratio", "at", "blob", "missing"])
            try await client.execute("DROP TABLE \(table)")
        }
    }
}
