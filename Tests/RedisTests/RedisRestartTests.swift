import Redis
import Synchronization
import TestSupport
import Testing

/// Behaviour across a Redis crash and restart, and authentication, on a private server.
@Suite struct RedisRestartTests {
    @Test func clientWorksAgainAfterServerRestart() async throws {
        try await PrivateRedisServer.with { server in
            try await TestRedis.withClient(url: server.url, poolSize: 4) { redis in
                try await Self.concurrently(8) { _ in _ = try await redis.command("INCR", "counter") }  // opens all 4 connections
                #expect(try await redis.command("GET", "counter").intValue == 8)

                server.stop()
                do {
                    try await redis.ping()
                    Issue.record("ping should fail while the server is down")
                } catch RedisError.connectionFailed, RedisError.connectionLost {
                }

                try await server.start()
                // Pooled connections closed by the crash are noticed before use, so even the
                // first calls after the restart succeed.
                try await Self.concurrently(8) { _ in _ = try await redis.command("INCR", "counter") }
                #expect(try await redis.command("GET", "counter").intValue == 8)  // the restarted server started empty
            }
        }
    }

    @Test func subscriptionKeepsReceivingAfterServerRestart() async throws {
        try await PrivateRedisServer.with { server in
            try await TestRedis.withClient(url: server.url) { redis in
                let statuses = Mutex<[RedisSubscription.Status]>([])
                let subscription = try await redis.subscribe(to: "news") { status in statuses.withLock { $0.append(status) } }
                var iterator = subscription.makeAsyncIterator()
                _ = try await redis.command("PUBLISH", "news", "before restart")
                #expect(await iterator.next()?.payload == "before restart")

                server.stop()
                try await server.start()
                // Publish until the subscriber has resubscribed; messages sent before then are lost.
                try await waitUntil("the subscriber is back", timeout: .seconds(30), interval: .milliseconds(50)) {
                    try await redis.command("PUBLISH", "news", "after restart").intValue == 1
                }
                #expect(await iterator.next()?.payload == "after restart")
                // The reader was told of the break (when it could have missed messages) and of the return.
                #expect(statuses.withLock { $0 } == [.interrupted, .resubscribed])
                subscription.cancel()
            }
        }
    }

    @Test func passwordFromURLAuthenticates() async throws {
        try await PrivateRedisServer.with(arguments: ["--requirepass", "hunter2secret"]) { server in
            var url = server.url
            url.password = "hunter2secret"
            try await TestRedis.withClient(url: url) { redis in
                try await redis.ping()
                let subscription = try await redis.subscribe(to: "authenticated")
                subscription.cancel()
            }
        }
    }

    @Test func wrongPasswordFailsWithoutRevealingIt() async throws {
        try await PrivateRedisServer.with(arguments: ["--requirepass", "the-real-one"]) { server in
            var url = server.url
            url.password = "hunter2wrong"
            try await TestRedis.withClient(url: url) { redis in
                do {
                    try await redis.ping()
                    Issue.record("a wrong password should be refused")
                } catch let error as RedisError {
                    guard case .connectionFailed(let message) = error else {
                        Issue.record("expected .connectionFailed, got \(error)")
                        return
                    }
                    #expect(!message.contains("hunter2"))
                }
            }
        }
    }

    private static func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count { group.addTask { try await body(index) } }
            try await group.waitForAll()
        }
    }
}
