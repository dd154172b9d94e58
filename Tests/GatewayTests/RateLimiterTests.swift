import Foundation
import Logging
import Redis
import Synchronization
import TestSupport
import Testing

@testable import Gateway

/// The per-client limits of sign-in, refresh and admin login, on the test run's Redis with a
/// clock the test moves: each client and bucket has its own count per minute window, the
/// request past the limit gets 429 with the seconds to the next window, the next window starts
/// afresh, and a Redis that does not answer lets requests by (or refuses them, fail closed).
@Suite struct RateLimiterTests {
    let logger = Logger(label: "rate-limiter-test")

    /// A clock the test sets, starting `offset` seconds into a minute.
    final class TestClock: Sendable {
        let time: Mutex<TimeInterval>
        init(secondsIntoMinute offset: Int) {
            let minute = (Int(Date().timeIntervalSince1970) / 60 + 1) * 60
            self.time = Mutex(TimeInterval(minute + offset))
        }
        func advance(_ seconds: TimeInterval) { self.time.withLock { $0 += seconds } }
        var now: @Sendable () -> Date { { Date(timeIntervalSince1970: self.time.withLock { $0 }) } }
    }

    func limiter(_ redis: RedisClient, _ clock: TestClock) -> RateLimiter {
        RateLimiter(redis: redis, clientAddresses: ClientAddressResolver(trustedProxies: []), now: clock.now)
    }

    func withRedis(url: String? = nil, _ body: (RedisClient) async throws -> Void) async throws {
        let redis = RedisClient(
            configuration: RedisConfiguration(url: try RedisURL(parsing: try url ?? requiredEnvironment("REDIS_URL")), poolSize: 1),
            logger: self.logger)
        do {
            try await body(redis)
            await redis.shutdown()
        } catch {
            await redis.shutdown()
            throw error
        }
    }

    /// The 429 a call throws, or nil when it is let through.
    func refusal(_ limiter: RateLimiter, _ bucket: String, _ client: String, limit: Int, failClosed: Bool = false) async -> APIError? {
        do {
            try await limiter.count(bucket, client: client, limit: limit, failClosed: failClosed, logger: self.logger)
            return nil
        } catch let error as APIError {
            return error
        } catch {
            Issue.record("not an API error: \(error)")
            return nil
        }
    }

    @Test func theRequestPastTheLimitWaitsForTheNextWindow() async throws {
        try await self.withRedis { redis in
            let clock = TestClock(secondsIntoMinute: 15)
            let limiter = self.limiter(redis, clock)
            let bucket = "test-\(UUID().uuidString)"
            for _ in 0..<3 {
                #expect(await self.refusal(limiter, bucket, "192.0.2.1", limit: 3) == nil)
                clock.advance(10)
            }
            // 45 s into the window: the fourth is refused until the next one, 15 s away.
            let refused = try #require(await self.refusal(limiter, bucket, "192.0.2.1", limit: 3))
            #expect(refused.status == .tooManyRequests)
            #expect(refused.code == .rateLimited)
            #expect(refused.headers[.retryAfter] == "15")
            // Other clients and other buckets count on their own.
            #expect(await self.refusal(limiter, bucket, "192.0.2.2", limit: 3) == nil)
            #expect(await self.refusal(limiter, bucket + "-other", "192.0.2.1", limit: 3) == nil)
            // The last second of the window still counts in it; the next second starts afresh.
            clock.advance(14)
            #expect(await self.refusal(limiter, bucket, "192.0.2.1", limit: 3)?.headers[.retryAfter] == "1")
            clock.advance(1)
            #expect(await self.refusal(limiter, bucket, "192.0.2.1", limit: 3) == nil)
        }
    }

    @Test func aLimitOfZeroCountsNothing() async throws {
        try await self.withRedis { redis in
            let clock = TestClock(secondsIntoMinute: 0)
            let limiter = self.limiter(redis, clock)
            let bucket = "test-\(UUID().uuidString)"
            for _ in 0..<20 {
                #expect(await self.refusal(limiter, bucket, "192.0.2.1", limit: 0) == nil)
            }
            let keys = try await redis.command("KEYS", "latchkey:ratelimit:\(bucket):*")
            #expect(keys.arrayValue?.isEmpty == true, "\(keys)")
        }
    }

    @Test func theCountExpiresWithItsWindow() async throws {
        try await self.withRedis { redis in
            let clock = TestClock(secondsIntoMinute: 30)
            let bucket = "test-\(UUID().uuidString)"
            #expect(await self.refusal(self.limiter(redis, clock), bucket, "192.0.2.1", limit: 5) == nil)
            let keys = try #require(try await redis.command("KEYS", "latchkey:ratelimit:\(bucket):*").arrayValue)
            #expect(keys.count == 1)
            let ttl = try await redis.command("TTL", try #require(keys.first?.stringValue)).intValue
            #expect(ttl.map { $0 > 0 && $0 <= 61 } == true, "\(String(describing: ttl))")
        }
    }

    /// Redis does not answer (nothing listens on the port): the limit lets everyone by, and a
    /// limit that fails closed (admin login) answers 503.
    @Test func anUnreachableRedisFailsOpenUnlessAskedToFailClosed() async throws {
        let port = try freePort()
        try await self.withRedis(url: "redis://127.0.0.1:\(port)") { redis in
            let limiter = self.limiter(redis, TestClock(secondsIntoMinute: 0))
            for _ in 0..<5 {
                #expect(await self.refusal(limiter, "sign-in", "192.0.2.1", limit: 1) == nil)
            }
            let closed = try #require(await self.refusal(limiter, "admin-login", "192.0.2.1", limit: 1, failClosed: true))
            #expect(closed.status == .serviceUnavailable)
            #expect(closed.code == .serviceUnavailable)
        }
    }
}
