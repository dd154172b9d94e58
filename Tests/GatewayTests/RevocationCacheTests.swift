import TokensAPI
import Foundation
import Logging
import Redis
import ServiceKit
import ServiceLifecycle
import TestSupport
import Testing

@testable import Gateway

/// The gateway's cache of live revocation verdicts: what it keeps, what drops it, and that it is
/// only used while the revocation channel is subscribed.
@Suite("Revocation cache")
struct RevocationCacheTests {
    let logger = Logger(label: "test")

    func token(user: UUID = UUID(), issuedAt: Int64 = 1_000) -> VerifiedToken {
        VerifiedToken(caller: Caller(userID: user, sessionID: UUID(), isAdmin: false), issuedAt: issuedAt)
    }

    func enabledCache(timeToLive: Duration = .seconds(5), capacity: Int = 100) -> RevocationCache {
        let cache = RevocationCache(timeToLive: timeToLive, capacity: capacity)
        cache.setEnabled(true)
        return cache
    }

    @Test func liveVerdictsAreKeptUntilTheyLapse() throws {
        let cache = self.enabledCache()
        let token = self.token()
        let now = ContinuousClock.now
        #expect(!cache.isLive(token, now: now))
        cache.storeLive(token, epoch: try #require(cache.epoch()), now: now)
        #expect(cache.isLive(token, now: now + .seconds(4)))
        #expect(!cache.isLive(token, now: now + .seconds(5)))
        // Another session of the same user is its own entry.
        var other = self.token(user: token.caller.userID)
        other.issuedAt = token.issuedAt
        #expect(!cache.isLive(other, now: now))
    }

    @Test func aMessageDuringTheReadKeepsTheOlderAnswerOut() throws {
        let cache = self.enabledCache()
        let token = self.token()
        let epoch = try #require(cache.epoch())
        // Any revocation message while the check was reading Redis...
        cache.apply(#"{"kind":"user","user_id":"\#(UUID().uuidString.lowercased())","not_before":1}"#, logger: self.logger)
        // ...and the answer read before it is not kept.
        cache.storeLive(token, epoch: epoch)
        #expect(!cache.isLive(token))
    }

    @Test func olderTokensOfACachedSessionAreCheckedAgain() throws {
        let cache = self.enabledCache()
        let token = self.token(issuedAt: 1_000)
        cache.storeLive(token, epoch: try #require(cache.epoch()))
        var newer = token
        newer.issuedAt = 1_060
        var older = token
        older.issuedAt = 940
        #expect(cache.isLive(newer))
        #expect(!cache.isLive(older))
    }

    @Test func messagesDropWhatTheyName() throws {
        let cache = self.enabledCache()
        let (a, b, c) = (self.token(), self.token(), self.token())
        for token in [a, b, c] { cache.storeLive(token, epoch: try #require(cache.epoch())) }

        let sessionMessage = #"{"kind":"session","session_id":"\#(a.caller.sessionID.uuidString.lowercased())","user_id":"\#(a.caller.userID.uuidString.lowercased())"}"#
        cache.apply(sessionMessage, logger: self.logger)
        #expect(!cache.isLive(a))
        #expect(cache.isLive(b) && cache.isLive(c))

        cache.apply(#"{"kind":"user","user_id":"\#(b.caller.userID.uuidString.lowercased())","not_before":1767225600}"#, logger: self.logger)
        #expect(!cache.isLive(b))
        #expect(cache.isLive(c))

        cache.apply(#"{"kind":"reseeded"}"#, logger: self.logger)
        #expect(!cache.isLive(c))

        cache.storeLive(c, epoch: try #require(cache.epoch()))
        cache.apply("not json", logger: self.logger)
        #expect(!cache.isLive(c))
    }

    @Test func thisGatewaysOwnRevocationsDropTheUserAtOnce() throws {
        let cache = self.enabledCache()
        let (a, b) = (self.token(), self.token())
        cache.storeLive(a, epoch: try #require(cache.epoch()))
        cache.storeLive(b, epoch: try #require(cache.epoch()))
        cache.forget(user: a.caller.userID)
        #expect(!cache.isLive(a))
        #expect(cache.isLive(b))
        cache.forgetAll()
        #expect(!cache.isLive(b))
    }

    @Test func offUntilSubscribedAndEmptiedWhenSwitched() throws {
        let cache = RevocationCache(timeToLive: .seconds(5))
        #expect(cache.epoch() == nil)
        cache.setEnabled(true)
        let token = self.token()
        cache.storeLive(token, epoch: try #require(cache.epoch()))
        cache.setEnabled(false)
        #expect(!cache.isLive(token))
        #expect(cache.epoch() == nil)
        cache.setEnabled(true)
        #expect(!cache.isLive(token))
    }

    @Test func aFullCacheStartsOver() throws {
        let cache = self.enabledCache(capacity: 2)
        let tokens = [self.token(), self.token(), self.token()]
        for token in tokens { cache.storeLive(token, epoch: try #require(cache.epoch())) }
        #expect(!cache.isLive(tokens[0]) && !cache.isLive(tokens[1]))
        #expect(cache.isLive(tokens[2]))
    }

    /// Against a private Redis server: the checker answers from the cache while subscribed, a
    /// published revocation reaches it, and a broken subscription switches it off until the
    /// server is back.
    @Test func feedKeepsTheCacheInStepWithTheChannel() async throws {
        try await PrivateRedisServer.with { server in
            let redis = RedisClient(configuration: RedisConfiguration(url: server.url, poolSize: 2), logger: self.logger)
            let cache = RevocationCache(timeToLive: .seconds(60))
            let checker = RevocationChecker(redis: redis, failOpen: false, cache: cache)
            let feed = CacheFeed(redis: redis, cache: cache, channel: RevocationKeys.channel, logger: self.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await feed.run() }
                defer { group.cancelAll() }
                try await waitUntil("the feed subscribes and enables the cache") { cache.isEnabled }
                _ = try await redis.command(["SET", RevocationKeys.complete, "1"])

                let token = self.token(issuedAt: Int64(Date().timeIntervalSince1970 * 1000))
                #expect(try await checker.check(token, logger: self.logger) == .live)
                // Written without a message, the revocation is not seen: the verdict came from the cache.
                _ = try await redis.command(["SET", RevocationKeys.session(token.caller.sessionID), "logout", "EX", "60"])
                #expect(try await checker.check(token, logger: self.logger) == .live)
                // With the message tokens publishes, it is.
                let message = #"{"kind":"session","session_id":"\#(token.caller.sessionID.uuidString.lowercased())","user_id":"\#(token.caller.userID.uuidString.lowercased())"}"#
                _ = try await redis.command(["PUBLISH", RevocationKeys.channel, message])
                try await waitUntil("the published revocation reaches the cache") {
                    try await checker.check(token, logger: self.logger) == .revoked(reason: "logout")
                }

                // A crash of Redis breaks the subscription: the cache goes off (and stays off
                // while Redis is down), then comes back on once subscribed again.
                let other = self.token(issuedAt: Int64(Date().timeIntervalSince1970 * 1000))
                #expect(try await checker.check(other, logger: self.logger) == .live)
                server.stop()
                try await waitUntil("the broken subscription switches the cache off") { !cache.isEnabled }
                #expect(!cache.isLive(other))
                try await server.start()
                try await waitUntil("resubscribed after the restart") { cache.isEnabled }
                // The restarted server is empty: no marker, so the check fails closed.
                await #expect(throws: APIError.self) { try await checker.check(other, logger: self.logger) }
            }
            await redis.shutdown()
        }
    }
}
