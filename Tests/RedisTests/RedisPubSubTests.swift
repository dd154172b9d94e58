import Redis
import TestSupport
import Testing

/// Subscriptions: delivery order, and every way a subscription ends.
@Suite struct RedisPubSubTests {
    @Test func subscriberReceivesMessagesInPublishOrder() async throws {
        let channel = TestRedis.keyPrefix() + "channel"
        try await TestRedis.withClient { redis in
            let subscription = try await redis.subscribe(to: channel)
            for index in 1...20 {
                #expect(try await redis.command("PUBLISH", channel, "message \(index)\nline 2") == .integer(1))
            }
            var iterator = subscription.makeAsyncIterator()
            for index in 1...20 {
                let message = await iterator.next()
                #expect(message == RedisMessage(channel: channel, payload: "message \(index)\nline 2"))
            }
            subscription.cancel()
        }
    }

    @Test func cancelEndsTheSequenceAndUnsubscribes() async throws {
        let channel = TestRedis.keyPrefix() + "channel"
        try await TestRedis.withClient { redis in
            let subscription = try await redis.subscribe(to: channel)
            #expect(try await TestRedis.subscriberCount(channel, client: redis) == 1)
            _ = try await redis.command("PUBLISH", channel, "before cancel")
            var iterator = subscription.makeAsyncIterator()
            #expect(await iterator.next()?.payload == "before cancel")
            subscription.cancel()
            #expect(await iterator.next() == nil)
            try await TestRedis.waitUntilUnsubscribed(channel, client: redis)
        }
    }

    @Test func cancellingTheConsumingTaskEndsTheSubscription() async throws {
        let channel = TestRedis.keyPrefix() + "channel"
        try await TestRedis.withClient { redis in
            let subscription = try await redis.subscribe(to: channel)
            let consumer = Task {
                var received = 0
                for await _ in subscription { received += 1 }
                return received
            }
            _ = try await redis.command("PUBLISH", channel, "one")
            consumer.cancel()
            // Returns only because the sequence ended.
            _ = try await withDeadline("the subscription ends with its consumer") { await consumer.value }
            try await TestRedis.waitUntilUnsubscribed(channel, client: redis)
        }
    }

    @Test func shutdownEndsSubscriptions() async throws {
        let channel = TestRedis.keyPrefix() + "channel"
        let subscription = try await TestRedis.withClient { redis in
            try await redis.subscribe(to: channel)
        }
        var iterator = subscription.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        try await TestRedis.withClient { redis throws in
            // Redis notices the closed connection asynchronously.
            try await TestRedis.waitUntilUnsubscribed(channel, client: redis)
        }
    }

    @Test func oneSubscriptionCoversSeveralChannels() async throws {
        let prefix = TestRedis.keyPrefix()
        try await TestRedis.withClient { redis in
            let subscription = try await redis.subscribe(to: [prefix + "a", prefix + "b"])
            _ = try await redis.command("PUBLISH", prefix + "b", "to b")
            _ = try await redis.command("PUBLISH", prefix + "a", "to a")
            var iterator = subscription.makeAsyncIterator()
            #expect(await iterator.next() == RedisMessage(channel: prefix + "b", payload: "to b"))
            #expect(await iterator.next() == RedisMessage(channel: prefix + "a", payload: "to a"))
            subscription.cancel()
        }
    }
}
