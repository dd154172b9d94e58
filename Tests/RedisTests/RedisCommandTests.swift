import Redis
import Testing

/// Single commands against the shared test server.
@Suite struct RedisCommandTests {
    @Test func setGetAndDelRoundTrip() async throws {
        let key = TestRedis.keyPrefix() + "k"
        try await TestRedis.withClient { redis throws in
            #expect(try await redis.command("SET", key, "value") == .string("OK"))
            #expect(try await redis.command("GET", key) == .string("value"))
            #expect(try await redis.command("DEL", key) == .integer(1))
            #expect(try await redis.command("DEL", key) == .integer(0))
        }
    }

    @Test func getOfMissingKeyIsNull() async throws {
        try await TestRedis.withClient { redis in
            let reply = try await redis.command("GET", TestRedis.keyPrefix() + "missing")
            #expect(reply == .null)
            #expect(reply.isNull)
            #expect(reply.stringValue == nil)
        }
    }

    @Test func incrCountsUpFromZero() async throws {
        let key = TestRedis.keyPrefix() + "counter"
        try await TestRedis.withClient { redis in
            #expect(try await redis.command("INCR", key).intValue == 1)
            #expect(try await redis.command("INCRBY", key, "41").intValue == 42)
            #expect(try await redis.command("GET", key).intValue == 42)
            _ = try await redis.command("DEL", key)
        }
    }

    @Test func expireSetsTimeToLive() async throws {
        let key = TestRedis.keyPrefix() + "ttl"
        try await TestRedis.withClient { redis in
            _ = try await redis.command("SET", key, "x")
            #expect(try await redis.command("TTL", key) == .integer(-1))
            #expect(try await redis.command("EXPIRE", key, "100") == .integer(1))
            let ttl = try #require(try await redis.command("TTL", key).intValue)
            #expect((1...100).contains(ttl))
            _ = try await redis.command("DEL", key)
            #expect(try await redis.command("TTL", key) == .integer(-2))
        }
    }

    @Test(arguments: [
        "two words", "line\nbreak", "crlf\r\nin the middle\r\n", "ünïcødé 🔑 ключ 鍵", "", "tab\tand \"quotes\"",
        "nul\u{0}byte", "*3\r\n$3\r\nSET\r\n",
    ])
    func binaryUnsafeStringsRoundTrip(_ value: String) async throws {
        let key = TestRedis.keyPrefix() + value  // the key itself is binary-unsafe too
        try await TestRedis.withClient { redis in
            _ = try await redis.command(["SET", key, value])
            #expect(try await redis.command(["GET", key]) == .string(value))
            #expect(try await redis.command(["STRLEN", key]) == .integer(value.utf8.count))
            _ = try await redis.command(["DEL", key])
        }
    }

    @Test func bytesArgumentsStoreNonUTF8Values() async throws {
        let key = TestRedis.keyPrefix() + "bytes"
        let value: [UInt8] = [0xFF, 0x00, 0xFE, 0x0D, 0x0A, 0x80]
        try await TestRedis.withClient { redis in
            _ = try await redis.command(["SET", .string(key), .bytes(value)])
            let reply = try await redis.command("GET", key)
            #expect(reply == .bytes(value))
            #expect(reply.bytesValue == value)
            _ = try await redis.command("DEL", key)
        }
    }

    @Test func serverErrorReplyThrowsServerError() async throws {
        let key = TestRedis.keyPrefix() + "text"
        try await TestRedis.withClient { redis in
            _ = try await redis.command("SET", key, "not a number")
            await #expect(throws: RedisError.server("ERR value is not an integer or out of range")) {
                try await redis.command("INCR", key)
            }
            do {
                _ = try await redis.command("NOSUCHCOMMAND", "x")
                Issue.record("an unknown command should throw")
            } catch RedisError.server(let message) {
                #expect(message.hasPrefix("ERR unknown command"))
            }
            // The connection that carried the error replies is still fine.
            #expect(try await redis.command("GET", key) == .string("not a number"))
            _ = try await redis.command("DEL", key)
        }
    }

    @Test func arrayRepliesKeepOrder() async throws {
        let key = TestRedis.keyPrefix() + "list"
        try await TestRedis.withClient { redis in
            _ = try await redis.command("RPUSH", key, "a", "b", "c")
            let reply = try await redis.command("LRANGE", key, "0", "-1")
            #expect(reply == .array([.string("a"), .string("b"), .string("c")]))
            _ = try await redis.command("DEL", key)
        }
    }

    @Test func pingSucceeds() async throws {
        try await TestRedis.withClient { redis in try await redis.ping() }
    }

    @Test func databaseFromURLIsSelected() async throws {
        let key = TestRedis.keyPrefix() + "db"
        var url = try TestRedis.url()
        url.database = 3
        try await TestRedis.withClient(url: url) { redis in
            _ = try await redis.command("SET", key, "in db 3")
        }
        url.database = 0
        try await TestRedis.withClient(url: url) { redis throws in
            #expect(try await redis.command("GET", key) == .null)
        }
        url.database = 3
        try await TestRedis.withClient(url: url) { redis in
            #expect(try await redis.command("GET", key) == .string("in db 3"))
            _ = try await redis.command("DEL", key)
        }
    }

    @Test func emptyCommandIsRejected() async throws {
        try await TestRedis.withClient { redis in
            await #expect(throws: RedisError.self) { try await redis.command([String]()) }
        }
    }
}
