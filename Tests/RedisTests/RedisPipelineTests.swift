import Redis
import Testing

/// Pipelines: many commands, one round trip, replies in order.
@Suite struct RedisPipelineTests {
    @Test func hundredCommandsComeBackInOrder() async throws {
        let prefix = TestRedis.keyPrefix()
        try await TestRedis.withClient { redis in
            let sets = (0..<50).map { ["SET", "\(prefix)\($0)", "value \($0)"] }
            let gets = (0..<50).map { ["GET", "\(prefix)\($0)"] }
            let replies = try await redis.pipeline(sets + gets)
            #expect(replies.count == 100)
            #expect(replies[..<50].allSatisfy { $0 == .string("OK") })
            #expect(Array(replies[50...]) == (0..<50).map { .string("value \($0)") })
            _ = try await redis.command(["DEL"] + (0..<50).map { "\(prefix)\($0)" })
        }
    }

    @Test func errorReplyInTheMiddleComesBackAsErrorValue() async throws {
        let prefix = TestRedis.keyPrefix()
        try await TestRedis.withClient { redis in
            let replies = try await redis.pipeline([
                ["SET", prefix + "text", "abc"],
                ["INCR", prefix + "text"],
                ["INCR", prefix + "counter"],
                ["GET", prefix + "text"],
            ])
            #expect(replies.count == 4)
            #expect(replies[0] == .string("OK"))
            #expect(replies[1] == .error("ERR value is not an integer or out of range"))
            #expect(replies[2] == .integer(1))
            #expect(replies[3] == .string("abc"))
            _ = try await redis.command("DEL", prefix + "text", prefix + "counter")
        }
    }

    @Test func emptyPipelineReturnsNoReplies() async throws {
        try await TestRedis.withClient { redis throws in
            #expect(try await redis.pipeline([[String]]()) == [])
        }
    }
}
