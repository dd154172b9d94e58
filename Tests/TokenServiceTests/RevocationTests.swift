import Foundation
import TokensAPI
import Logging
import Postgres
import Redis
import ServiceKit
import ServiceProtocol
import TestSupport
import Testing
@testable import TokenService

/// Revocation: Postgres first, then the Redis keys (with a TTL of at least the access token
/// lifetime) and the channel; `verify` refuses at once.
@Suite struct RevocationTests {
    @Test func revokingASessionWritesItsRedisKeyPublishesAndVerifyRefusesAtOnce() async throws {
        try await TokensHarness.run(environment: ["ACCESS_TOKEN_TTL": "900"]) { tokens in
            let user = UUID()
            let kept = try await tokens.issue(user)
            let revoked = try await tokens.issue(user)
            #expect(try await tokens.verify(revoked.accessToken).userID == user)
            let subscription = try await tokens.redis.subscribe(to: RevocationKeys.channel)
            defer { subscription.cancel() }
            let result = try await tokens.client.call(
                Tokens.revoke, RevokeParams(userID: user, sessionID: revoked.sessionID))
            #expect(result.revoked)
            #expect(await tokens.errorCode { try await tokens.verify(revoked.accessToken) } == .sessionRevoked)
            #expect(await tokens.errorCode { try await tokens.refresh(revoked.refreshToken) } == .invalidRefreshToken)
            #expect(try await tokens.verify(kept.accessToken).sessionID == kept.sessionID)
            let ttl = try await tokens.redis.command(["TTL", RevocationKeys.session(revoked.sessionID)]).intValue ?? -2
            // The access token lifetime (900 s) plus the largest verifier leeway (300 s) and a
            // minute: no gateway can still accept the token once the key is gone.
            #expect(ttl >= 900 + 300 && ttl <= 900 + 360 + 1)
            let sessionID = revoked.sessionID.uuidString.lowercased()
            let message = try await withDeadline("the revocation message") { () -> RedisMessage? in
                for await received in subscription where received.payload.contains(sessionID) { return received }
                return nil
            }
            #expect(message?.payload.contains(#""kind":"session""#) == true)
            // Revoking again is fine and says so.
            let again = try await tokens.client.call(
                Tokens.revoke, RevokeParams(userID: user, sessionID: revoked.sessionID))
            #expect(!again.revoked)
        }
    }

    @Test func revokingAnotherUsersSessionIsNotFound() async throws {
        try await TokensHarness.run { tokens in
            let pair = try await tokens.issue()
            let code = await tokens.errorCode {
                try await tokens.client.call(Tokens.revoke, RevokeParams(userID: UUID(), sessionID: pair.sessionID))
            }
            #expect(code == .notFound)
            #expect(try await tokens.verify(pair.accessToken).sessionID == pair.sessionID)
        }
    }

    @Test func revokeAllButOneKeepsOnlyThatSession() async throws {
        try await TokensHarness.run { tokens in
            let user = UUID()
            let pairs = [try await tokens.issue(user), try await tokens.issue(user), try await tokens.issue(user)]
            let result = try await tokens.client.call(
                Tokens.revokeAll, RevokeAllParams(userID: user, exceptSessionID: pairs[0].sessionID))
            #expect(result.revokedSessions == 2)
            #expect(try await tokens.verify(pairs[0].accessToken).sessionID == pairs[0].sessionID)
            for pair in pairs.dropFirst() {
                #expect(await tokens.errorCode { try await tokens.verify(pair.accessToken) } == .sessionRevoked)
                #expect(try await tokens.redis.command(["EXISTS", RevocationKeys.session(pair.sessionID)]).intValue == 1)
            }
            let list = try await tokens.client.call(Tokens.listSessions, ListSessionsParams(userID: user))
            #expect(list.sessions.map(\.id) == [pairs[0].sessionID])
            let all = try await tokens.client.call(Tokens.revokeAll, RevokeAllParams(userID: user))
            #expect(all.revokedSessions == 1)
            #expect(await tokens.errorCode { try await tokens.verify(pairs[0].accessToken) } == .sessionRevoked)
        }
    }

    @Test func revokeUserSetsANotBeforeThatKillsEveryEarlierAccessToken() async throws {
        try await TokensHarness.run { tokens in
            let user = UUID()
            let pair = try await tokens.issue(user)
            // The revocation at .300 of a second, the next sign-in at .302: the same second.
            let fraction = tokens.clock.now.timeIntervalSince1970.truncatingRemainder(dividingBy: 1)
            tokens.clock.advance(by: (1.3 - fraction).truncatingRemainder(dividingBy: 1))
            let result = try await tokens.client.call(
                Tokens.revokeUser, RevokeUserParams(userID: user, reason: .deactivated))
            #expect(result.revokedSessions == 1)
            let stored = try await tokens.redis.command(["GET", RevocationKeys.user(user)]).stringValue
            #expect(stored.flatMap(RevocationKeys.notBeforeMilliseconds) == Int64((result.notBefore * 1000).rounded()))
            let ttl = try await tokens.redis.command(["TTL", RevocationKeys.user(user)]).intValue ?? -2
            #expect(ttl >= 900 + 300)
            #expect(await tokens.errorCode { try await tokens.verify(pair.accessToken) } == .sessionRevoked)
            // A sign-in after the not-before (reactivation) gets working tokens, even within the
            // same second as the revocation.
            tokens.clock.advance(by: 0.002)
            let later = try await tokens.issue(user)
            #expect(try await tokens.verify(later.accessToken).userID == user)
        }
    }

    @Test func listSessionsShowsLiveSessionsMostRecentlyUsedFirst() async throws {
        try await TokensHarness.run { tokens in
            let user = UUID()
            let older = try await tokens.issue(user, device: "iPad")
            tokens.clock.advance(by: 5)
            let newer = try await tokens.issue(user, device: "Pixel\u{7}")
            tokens.clock.advance(by: 5)
            _ = try await tokens.refresh(older.refreshToken)
            let list = try await tokens.client.call(Tokens.listSessions, ListSessionsParams(userID: user))
            #expect(list.sessions.map(\.id) == [older.sessionID, newer.sessionID])
            #expect(list.sessions.map(\.deviceName) == ["iPad", "Pixel"])
            let other = try await tokens.client.call(Tokens.listSessions, ListSessionsParams(userID: UUID()))
            #expect(other.sessions.isEmpty)
        }
    }

    /// Runs against a private Redis database, so other tests never see the marker missing.
    @Test func aMissingMarkerIsReseededFromPostgres() async throws {
        let base = try RedisURL(parsing: try requiredEnvironment("REDIS_URL"))
        var url = base
        url.database = 9
        try await TokensHarness.run(environment: ["REDIS_URL": url.description]) { tokens in
            let redis = RedisClient(configuration: RedisConfiguration(url: url), logger: Logger(label: "test"))
            defer { Task { await redis.shutdown() } }
            let user = UUID()
            let pair = try await tokens.issue(user)
            _ = try await tokens.client.call(Tokens.revoke, RevokeParams(userID: user, sessionID: pair.sessionID))
            // Redis restarted empty: marker and keys gone. Verify still refuses (Postgres answers).
            _ = try await redis.command(["DEL", RevocationKeys.complete, RevocationKeys.session(pair.sessionID)])
            #expect(await tokens.errorCode { try await tokens.verify(pair.accessToken) } == .sessionRevoked)
            // Within a few reseed intervals the key and the marker are back.
            try await waitUntil("the re-seeder sets the marker again", interval: .milliseconds(100)) {
                try await redis.command(["EXISTS", RevocationKeys.complete]).intValue == 1
            }
            #expect(try await redis.command(["GET", RevocationKeys.session(pair.sessionID)]).stringValue == "logout")
        }
    }

    /// Replica A revokes while its Redis is gone and stops before it could copy anything;
    /// another replica (B, started after, or another test's) copies it from the row A's
    /// transaction left. A full reseed publishes only "reseeded", so the session's own message
    /// shows the repair.
    @Test func aRevocationCopyThatFailedIsMadeByAnotherReplicaAfterTheFirstDies() async throws {
        let url = try RedisURL(parsing: try requiredEnvironment("REDIS_URL"))
        let redis = RedisClient(configuration: RedisConfiguration(url: url), logger: Logger(label: "test"))
        defer { Task { await redis.shutdown() } }
        let subscription = try await redis.subscribe(to: RevocationKeys.channel)
        defer { subscription.cancel() }
        let user = UUID()
        let pair = try await PrivateRedisServer.with { lost in
            try await TokensHarness.run(environment: ["REDIS_URL": lost.url.description]) { a in
                let pair = try await a.issue(user)
                lost.stop()
                let result = try await a.client.call(Tokens.revoke, RevokeParams(userID: user, sessionID: pair.sessionID))
                #expect(result.revoked)
                return pair
            }
        }
        let sessionID = pair.sessionID.uuidString.lowercased()
        try await TokensHarness.run { b in
            let message = try await withDeadline("the repaired revocation's message") { () -> RedisMessage? in
                for await received in subscription where received.payload.contains(sessionID) { return received }
                return nil
            }
            #expect(message?.payload.contains(#""kind":"session""#) == true)
            #expect(try await b.redis.command(["GET", RevocationKeys.session(pair.sessionID)]).stringValue == "logout")
            try await waitUntil("the owed copy is settled", interval: .milliseconds(100)) {
                try await b.postgres.query(
                    "SELECT 1 FROM tokens.revocation_copies WHERE session_id = $1", [.uuid(pair.sessionID)]
                ).isEmpty
            }
            #expect(await b.errorCode { try await b.verify(pair.accessToken) } == .sessionRevoked)
        }
    }

    /// The cleanup is global: its clock stays in the past, so it can only touch rows older
    /// than anything the other (concurrent) tests write.
    @Test func cleanupDeletesEndedSessionsAndSealedSuccessorsInBatches() async throws {
        let start = Date().addingTimeInterval(-40 * 86_400)
        let past = MockClock(start)
        try await TokensHarness.run(clock: past) { tokens in
            let user = UUID()
            var sessions: [UUID] = []
            for _ in 0..<5 {
                let pair = try await tokens.issue(user)
                _ = try await tokens.refresh(pair.refreshToken)
                sessions.append(pair.sessionID)
            }
            // An hour ago (sessions last 30 days): the first five ended long before.
            past.advance(by: 40 * 86_400 - 3_600)
            let fresh = try await tokens.issue(user)
            _ = try await tokens.refresh(fresh.refreshToken)
            let cleanupClock = MockClock(past.now.addingTimeInterval(5))
            var cleanup = SessionCleanup(
                postgres: tokens.postgres, clock: cleanupClock.tokenClock, interval: .seconds(60), batchSize: 2,
                accessTokenTTL: 900, reuseGrace: 10, logger: Logger(label: "test"))
            // Enough batches for whatever older rows a reused test database holds.
            cleanup.maximumBatches = 100_000
            let outcome = try await cleanup.runOnce()
            #expect(outcome.sessions >= 5)
            let ids = PostgresValue.text("{" + sessions.map(\.uuidString).joined(separator: ",") + "}")
            let left = try await tokens.postgres.query("SELECT count(*) AS n FROM tokens.sessions WHERE id = ANY($1::uuid[])", [ids])
            #expect(try left.first?.decode("n", as: Int.self) == 0)
            let orphans = try await tokens.postgres.query(
                "SELECT count(*) AS n FROM tokens.refresh_tokens WHERE session_id = ANY($1::uuid[])", [ids])
            #expect(try orphans.first?.decode("n", as: Int.self) == 0)
            // The live session stays, and its sealed successor until grace (plus skew) has passed.
            let freshHash = try #require(RefreshToken(presented: fresh.refreshToken)).hash
            let sealedQuery = "SELECT successor_sealed IS NOT NULL AS sealed FROM tokens.refresh_tokens WHERE hash = $1"
            #expect(try await tokens.postgres.query(sealedQuery, [.bytea(freshHash)]).first?.decode("sealed", as: Bool.self) == true)
            cleanupClock.advance(by: 70)
            try await cleanup.runOnce()
            #expect(try await tokens.postgres.query(sealedQuery, [.bytea(freshHash)]).first?.decode("sealed", as: Bool.self) == false)
            #expect(try await tokens.verify(fresh.accessToken).sessionID == fresh.sessionID)
            // The old token, presented within grace after its successor was cleared, is refused
            // without revoking the session.
            #expect(await tokens.errorCode { try await tokens.refresh(fresh.refreshToken) } == .invalidRefreshToken)
            #expect(try await tokens.verify(fresh.accessToken).sessionID == fresh.sessionID)
        }
    }
}
