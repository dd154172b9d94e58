import Foundation
import IdentityAPI
import Logging
import Redis
import ServiceKit
import TestSupport
import Testing

@testable import Gateway

/// The gateway's cache of users for `me` and refresh: what it keeps, what drops it, and that it
/// is only used while identity's announcements (`latchkey:users`) are subscribed.
@Suite("User cache")
struct UserCacheTests {
    let logger = Logger(label: "test")

    func user(_ id: UUID = UUID(), email: String = "someone@example.com") -> User {
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        return User(
            id: id, email: email, emailVerified: true, displayName: nil, isAdmin: false, isActive: true, providers: [.apple],
            createdAt: now, updatedAt: now)
    }

    func enabledCache(timeToLive: Duration = .seconds(60), capacity: Int = 100) -> UserCache {
        let cache = UserCache(timeToLive: timeToLive, capacity: capacity)
        cache.setEnabled(true)
        return cache
    }

    @Test func usersAreKeptUntilTheyLapse() throws {
        let cache = self.enabledCache()
        let user = self.user()
        let now = ContinuousClock.now
        #expect(cache.user(user.id, now: now) == nil)
        cache.store(user, epoch: try #require(cache.epoch()), now: now)
        #expect(cache.user(user.id, now: now + .seconds(59)) == user)
        #expect(cache.user(user.id, now: now + .seconds(60)) == nil)
        #expect(cache.user(UUID(), now: now) == nil)
    }

    @Test func anAnnouncementDuringTheReadKeepsTheOlderAnswerOut() throws {
        let cache = self.enabledCache()
        let old = self.user()
        let epoch = try #require(cache.epoch())
        // Identity announces a change (of anyone) while this gateway was reading the user...
        cache.apply(UserChanges.Message.text(user: UUID()), logger: self.logger)
        // ...so the answer read before it is not kept.
        cache.store(old, epoch: epoch)
        #expect(cache.user(old.id) == nil)
    }

    @Test func announcementsDropTheUserTheyName() throws {
        let cache = self.enabledCache()
        let (a, b) = (self.user(), self.user())
        for user in [a, b] { cache.store(user, epoch: try #require(cache.epoch())) }
        cache.apply(UserChanges.Message.text(user: a.id), logger: self.logger)
        #expect(cache.user(a.id) == nil)
        #expect(cache.user(b.id) == b)
        // What the gateway cannot read drops everything: it may have named anyone.
        for unreadable in ["not json", #"{"kind":"user"}"#, #"{"kind":"everyone"}"#] {
            cache.store(a, epoch: try #require(cache.epoch()))
            cache.apply(unreadable, logger: self.logger)
            #expect(cache.user(a.id) == nil, "\(unreadable)")
        }
    }

    @Test func thisGatewaysOwnChangesDropTheUserAtOnce() throws {
        let cache = self.enabledCache()
        let (a, b) = (self.user(), self.user())
        for user in [a, b] { cache.store(user, epoch: try #require(cache.epoch())) }
        let epoch = try #require(cache.epoch())
        cache.forget(user: a.id)
        #expect(cache.user(a.id) == nil)
        #expect(cache.user(b.id) == b)
        // A read that started before this gateway's change is not kept either.
        cache.store(a, epoch: epoch)
        #expect(cache.user(a.id) == nil)
        cache.forgetAll()
        #expect(cache.user(b.id) == nil)
    }

    @Test func offUntilSubscribedAndEmptiedWhenSwitched() throws {
        let cache = UserCache(timeToLive: .seconds(60))
        #expect(cache.epoch() == nil)
        cache.setEnabled(true)
        let user = self.user()
        cache.store(user, epoch: try #require(cache.epoch()))
        cache.setEnabled(false)
        #expect(cache.user(user.id) == nil)
        #expect(cache.epoch() == nil)
        cache.setEnabled(true)
        #expect(cache.user(user.id) == nil)
    }

    @Test func aFullCacheStartsOverAndAStoredUserIsReplaced() throws {
        let cache = self.enabledCache(capacity: 2)
        let users = [self.user(), self.user(), self.user()]
        for user in users.prefix(2) { cache.store(user, epoch: try #require(cache.epoch())) }
        // Storing a kept user again replaces it without counting twice.
        let renamed = self.user(users[1].id, email: "new@example.com")
        cache.store(renamed, epoch: try #require(cache.epoch()))
        #expect(cache.user(users[0].id) == users[0])
        #expect(cache.user(users[1].id) == renamed)
        cache.store(users[2], epoch: try #require(cache.epoch()))
        #expect(cache.user(users[0].id) == nil && cache.user(users[1].id) == nil)
        #expect(cache.user(users[2].id) == users[2])
    }

    /// Against a private Redis server: an announcement published on the channel reaches the
    /// cache, and a broken subscription switches it off until the server is back.
    @Test func feedKeepsTheCacheInStepWithIdentitysAnnouncements() async throws {
        try await PrivateRedisServer.with { server in
            let redis = RedisClient(configuration: RedisConfiguration(url: server.url, poolSize: 2), logger: self.logger)
            let cache = UserCache(timeToLive: .seconds(600))
            let feed = CacheFeed(redis: redis, cache: cache, channel: UserChanges.channel, logger: self.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await feed.run() }
                defer { group.cancelAll() }
                try await waitUntil("subscribed") { cache.isEnabled }
                let (a, b) = (self.user(), self.user())
                for user in [a, b] { cache.store(user, epoch: try #require(cache.epoch())) }
                _ = try await redis.command(["PUBLISH", UserChanges.channel, UserChanges.Message.text(user: a.id)])
                try await waitUntil("the announced user dropped") { cache.user(a.id) == nil }
                #expect(cache.user(b.id) == b)

                server.stop()
                try await waitUntil("off while Redis is down") { !cache.isEnabled }
                #expect(cache.user(b.id) == nil)
                try await server.start()
                try await waitUntil("resubscribed after the restart") { cache.isEnabled }
            }
            await redis.shutdown()
        }
    }
}
