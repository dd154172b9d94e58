import Foundation
import Logging
import Redis
import TestSupport
import Testing

/// Access to the shared throwaway Redis named by `REDIS_URL`, and helpers shared by the tests.
enum TestRedis {
    /// The URL of the test server. A missing `REDIS_URL` fails the calling test: these
    /// tests must never pass by not running.
    static func url() throws -> RedisURL {
        let text = try #require(
            ProcessInfo.processInfo.environment["REDIS_URL"],
            "REDIS_URL is not set: run scripts/test, or start a Redis and export REDIS_URL")
        return try RedisURL(parsing: text)
    }

    static let logger: Logger = {
        var logger = Logger(label: "redis-tests")
        logger.logLevel = .critical
        return logger
    }()

    /// A key prefix no other test (or test run) uses.
    static func keyPrefix(_ test: String = #function) -> String {
        "test:\(test.prefix { $0 != "(" }):\(UUID().uuidString):"
    }

    /// Runs `body` with a client of the test server, shutting it down afterwards.
    ///
    /// The client's timeouts are generous (`configure` may shorten them for a test about
    /// timeouts): at the start of a full run every suite starts at once and two cores are
    /// starved for seconds, long enough for the defaults (2 s to connect, 5 s a command) to
    /// fail a test that is not about time.
    @discardableResult
    static func withClient<Result>(
        url: RedisURL? = nil, poolSize: Int = 4, configure: (inout RedisConfiguration) -> Void = { _ in },
        _ body: (RedisClient) async throws -> Result
    ) async throws -> Result {
        var configuration = RedisConfiguration(url: try url ?? Self.url(), poolSize: poolSize)
        configuration.connectTimeout = .seconds(10)
        configuration.commandTimeout = .seconds(30)
        configuration.poolTimeout = .seconds(30)
        configure(&configuration)
        let client = RedisClient(configuration: configuration, logger: logger)
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }

    /// Subscriber count of `channel` as Redis sees it.
    static func subscriberCount(_ channel: String, client: RedisClient) async throws -> Int? {
        try await client.command("PUBSUB", "NUMSUB", channel).arrayValue?.last?.intValue
    }

    /// Waits (up to 30 s, for a starved machine) until Redis counts no subscriber of `channel`:
    /// it notices a closed or unsubscribed connection asynchronously.
    static func waitUntilUnsubscribed(
        _ channel: String, client: RedisClient, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await waitUntil(
            "the channel has no subscriber", timeout: .seconds(30), interval: .milliseconds(50), sourceLocation: sourceLocation
        ) {
            try await subscriberCount(channel, client: client) == 0
        }
    }
}
