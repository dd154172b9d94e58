import Foundation
import IdentityAPI
import Logging
import Redis
import ServiceProtocol
import Synchronization
import TestSupport
import Testing

/// Identity announces every change of a user on `latchkey:users` before it answers, so that
/// gateways drop the user from their caches (docs/protocol.md, "User changes").
@Suite("User change announcements")
struct UserChangeAnnouncementTests {
    /// Counts the announcements per user on the test run's Redis (other tests announce too).
    final class Listener: Sendable {
        let counts = Mutex<[UUID: Int]>([:])

        func count(_ user: UUID) -> Int { self.counts.withLock { $0[user, default: 0] } }

        func listen(_ subscription: RedisSubscription) async {
            for await message in subscription {
                if let user = UserChanges.Message.user(in: message.payload) { self.counts.withLock { $0[user, default: 0] += 1 } }
            }
        }
    }

    @Test func everyChangeOfAUserIsAnnouncedBeforeTheAnswer() async throws {
        let url = try RedisURL(parsing: try requiredEnvironment("REDIS_URL"))
        let redis = RedisClient(configuration: RedisConfiguration(url: url, poolSize: 2), logger: Logger(label: "test"))
        let listener = Listener()
        let subscription = try await redis.subscribe(to: UserChanges.channel)
        let listening = Task { await listener.listen(subscription) }
        defer {
            subscription.cancel()
            listening.cancel()
        }
        try await IdentityHarness.run(redis: redis) { harness in
            let subject = uniqueSubject()
            let created = try await harness.signInGoogle(subject: subject, email: uniqueEmail())
            let user = created.user.id
            /// Runs one call, then waits for the announcement it must have made.
            func expectAnnounced(_ what: String, _ call: () async throws -> Void) async throws {
                let before = listener.count(user)
                try await call()
                try await waitUntil("\(what) announced") { listener.count(user) > before }
            }
            try await expectAnnounced("a sign-in that follows the provider's new email") {
                _ = try await harness.signInGoogle(subject: subject, email: uniqueEmail())
            }
            try await expectAnnounced("a sign-in that fills the name") {
                _ = try await harness.signInGoogle(subject: subject, name: "Ada Lovelace")
            }
            // A sign-in that changes nothing a gateway keeps (the identity's last sign-in time
            // is not shown by `me` or refresh) announces nothing; checked with the reads below.
            let unchanged = listener.count(user)
            _ = try await harness.signInGoogle(subject: subject, name: "Ada Lovelace")
            try await expectAnnounced("link") {
                let token = try await harness.appleToken(subject: uniqueSubject())
                let linked = try await harness.client.call(
                    Identity.link, LinkParams(userID: user, credential: ProviderCredential(provider: .apple, identityToken: token)))
                #expect(linked.providers == [.apple, .google])
            }
            try await expectAnnounced("unlink") {
                _ = try await harness.client.call(Identity.unlink, UnlinkParams(userID: user, provider: .apple))
            }
            try await expectAnnounced("setAdmin") {
                _ = try await harness.client.call(Identity.setAdmin, SetAdminParams(userID: user, admin: true))
            }
            try await expectAnnounced("setActive") {
                _ = try await harness.client.call(Identity.setActive, SetActiveParams(userID: user, active: false))
            }
            try await expectAnnounced("deleteUser") {
                _ = try await harness.client.call(Identity.deleteUser, DeleteUserParams(userID: user))
            }
            // Reading announces nothing; a new user was never kept by anyone, so neither does
            // creating one. A change announced after them arrives after anything they announced.
            let before = listener.count(user)
            #expect(before == unchanged + 5, "link, unlink, setAdmin, setActive and deleteUser, one each")
            await expectRPCError(.notFound) { _ = try await harness.getUser(user) }
            let fresh = try await harness.signInApple(subject: uniqueSubject())
            _ = try await harness.client.call(Identity.setAdmin, SetAdminParams(userID: fresh.user.id, admin: true))
            try await waitUntil("the last change announced") { listener.count(fresh.user.id) > 0 }
            #expect(listener.count(fresh.user.id) == 1, "the new user's sign-in announced nothing")
            #expect(listener.count(user) == before)
        }
        await redis.shutdown()
    }
}
