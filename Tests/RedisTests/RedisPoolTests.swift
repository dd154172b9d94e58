import Redis
import TestSupport
import Testing

/// The connection pool under concurrency, timeouts, and an unreachable or shut-down server.
@Suite struct RedisPoolTests {
    @Test func concurrentIncrementsThroughPoolOfFourAreAllCounted() async throws {
        let key = TestRedis.keyPrefix() + "counter"
        try await TestRedis.withClient(poolSize: 4) { redis in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<200 {
                    group.addTask { _ = try await redis.command("INCR", key) }
                }
                try await group.waitForAll()
            }
            #expect(try await redis.command("GET", key).intValue == 200)
            _ = try await redis.command("DEL", key)
        }
    }

    @Test func slowReplyTimesOutAndClientRecovers() async throws {
        let key = TestRedis.keyPrefix() + "empty-list"
        try await TestRedis.withClient(poolSize: 1, configure: { $0.commandTimeout = .milliseconds(300) }) { redis in
            await #expect(throws: RedisError.timeout) {
                try await redis.command("BLPOP", key, "3")
            }
            try await redis.ping()
        }
    }

    @Test func unreachableServerFailsWithConnectionFailed() async throws {
        let url = RedisURL(host: "127.0.0.1", port: try freePort())
        try await TestRedis.withClient(url: url) { redis in
            do {
                try await redis.ping()
                Issue.record("ping should fail with nothing listening")
            } catch RedisError.connectionFailed {
            }
        }
    }

    @Test func callsAfterShutdownFail() async throws {
        let client = RedisClient(configuration: .init(url: try TestRedis.url()), logger: TestRedis.logger)
        try await client.ping()
        await client.shutdown()
        await client.shutdown()  // idempotent
        do {
            try await client.ping()
            Issue.record("a shut-down client should refuse commands")
        } catch RedisError.connectionFailed {
        }
        await #expect(throws: RedisError.self) { try await client.subscribe(to: "any") }
    }
}
