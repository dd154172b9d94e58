import Foundation
import IdentityAPI
import IdentityService
import MockIdentityProvider
import Postgres
import ServiceProtocol
import Testing

/// Apple's server-to-server notifications against the mock provider and the real Postgres:
/// each event type, applied once per `jti`, and every JWS that does not verify refused.
@Suite struct AppleNotificationTests {
    func payload(
        _ harness: IdentityHarness, subject: String, type: String, jti: String? = nil, audience: String = IdentityHarness.appleAudience,
        issuedAt: Date? = nil, defect: TokenDefect? = nil
    ) async throws -> String {
        try await harness.mock.mintAppleNotification(
            AppleNotificationMintRequest(
                subject: subject, audience: audience, type: type, email: "relay@privaterelay.appleid.com",
                isPrivateEmail: .string("true"), jti: jti, issuedAt: issuedAt, defect: defect))
    }

    func send(_ harness: IdentityHarness, _ payload: String) async throws -> AppleNotificationResult {
        try await harness.client.call(Identity.appleNotification, AppleNotificationParams(payload: payload))
    }

    func complete(_ harness: IdentityHarness, _ jti: String) async throws {
        _ = try await harness.client.call(Identity.completeAppleNotification, CompleteAppleNotificationParams(jti: jti))
    }

    @Test func consentRevokedKeepsTheIdentityAndAsksOnceForTheSessionsToBeRevoked() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let user = try await harness.signInApple(subject: subject).user
            let payload = try await self.payload(harness, subject: subject, type: "consent-revoked")
            let result = try await self.send(harness, payload)
            #expect(result.type == "consent-revoked")
            #expect(result.outcome == .applied)
            #expect(result.followUp == .revokeSessions)
            #expect(result.userID == user.id)
            #expect(try await harness.getUser(user.id).providers == [.apple])
            // Until the caller confirms its follow-up, a repeat hands it out again; then never.
            let again = try await self.send(harness, payload)
            #expect(again.outcome == .repeated)
            #expect(again.followUp == .revokeSessions)
            try await self.complete(harness, result.jti)
            let afterwards = try await self.send(harness, payload)
            #expect(afterwards.outcome == .repeated)
            #expect(afterwards.followUp == AppleNotificationFollowUp.none)
            // A later Apple sign-in is a fresh consent into the same user.
            #expect(try await harness.signInApple(subject: subject).user.id == user.id)
        }
    }

    @Test func accountDeleteRemovesTheIdentityAndTheUserWhenItWasTheLast() async throws {
        // With Apple REST on, so that the identity holds an Apple refresh token.
        try await AppleRESTTests.withAppleREST { harness, _ in
            let subject = uniqueSubject()
            let user = try await harness.signInAppleWithCode(subject: subject).user
            #expect(await harness.mock.callLog.appleTokenExchanges.count == 1)
            let result = try await self.send(harness, try await self.payload(harness, subject: subject, type: "account-delete"))
            #expect(result.outcome == .applied)
            #expect(result.followUp == .deleteAccount)
            #expect(result.userID == user.id)
            await expectRPCError(.notFound) { _ = try await harness.getUser(user.id) }
            // Apple is not called back: nothing went to the revocation outbox (a database of this test's own).
            let queued = try await harness.postgres.query("SELECT count(*) AS n FROM identity.apple_revocations")
            #expect(try queued.first?.decode("n", as: Int.self) == 0)
            #expect(await harness.mock.callLog.appleRevocations.isEmpty)
            // A later sign-in with that Apple account is a new user.
            let again = try await harness.signInApple(subject: subject)
            #expect(again.isNewUser)
            #expect(again.user.id != user.id)
        }
    }

    @Test func accountDeletedOfOneOfSeveralIdentitiesKeepsTheUser() async throws {
        try await IdentityHarness.run { harness in
            let email = uniqueEmail()
            let subject = uniqueSubject()
            let user = try await harness.signInApple(subject: subject, email: email).user
            let googleSubject = uniqueSubject()
            #expect(try await harness.signInGoogle(subject: googleSubject, email: email).user.id == user.id)
            // Apple's documented spelling.
            let result = try await self.send(harness, try await self.payload(harness, subject: subject, type: "account-deleted"))
            #expect(result.type == "account-delete")
            #expect(result.followUp == .revokeSessions)
            #expect(result.userID == user.id)
            #expect(try await harness.getUser(user.id).providers == [.google])
            #expect(try await harness.signInGoogle(subject: googleSubject).user.id == user.id)
        }
    }

    @Test func emailDisabledAndEnabledSetTheForwardingFlagOnly() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let user = try await harness.signInApple(
                subject: subject, email: "x-\(UUID().uuidString.prefix(8))@privaterelay.appleid.com", isPrivateEmail: .bool(true)).user
            #expect(try await harness.getUser(user.id).identities?.first?.emailForwarding == true)
            let disabled = try await self.send(harness, try await self.payload(harness, subject: subject, type: "email-disabled"))
            #expect(disabled.outcome == .applied)
            #expect(disabled.followUp == AppleNotificationFollowUp.none)
            #expect(try await harness.getUser(user.id).identities?.first?.emailForwarding == false)
            _ = try await self.send(harness, try await self.payload(harness, subject: subject, type: "email-enabled"))
            let fetched = try await harness.getUser(user.id)
            #expect(fetched.identities?.first?.emailForwarding == true)
            #expect(fetched.isActive)
        }
    }

    /// Apple retries, so the two email events may arrive out of order: an event older (by its
    /// event_time) than the last one applied changes nothing.
    @Test func anOlderEmailEventDoesNotUndoANewerOne() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let user = try await harness.signInApple(
                subject: subject, email: "x-\(UUID().uuidString.prefix(8))@privaterelay.appleid.com", isPrivateEmail: .bool(true)).user
            let now = Date()
            func forwarding() async throws -> Bool? { try await harness.getUser(user.id).identities?.first?.emailForwarding }
            _ = try await self.send(harness, try await self.payload(harness, subject: subject, type: "email-disabled", issuedAt: now.addingTimeInterval(-10)))
            #expect(try await forwarding() == false)
            // Enabled earlier than the disable that came first: stays disabled.
            let late = try await self.send(harness, try await self.payload(harness, subject: subject, type: "email-enabled", issuedAt: now.addingTimeInterval(-20)))
            #expect(late.outcome == .applied)
            #expect(try await forwarding() == false)
            // Enabled after it: forwarding again.
            _ = try await self.send(harness, try await self.payload(harness, subject: subject, type: "email-enabled", issuedAt: now.addingTimeInterval(-5)))
            #expect(try await forwarding() == true)
        }
    }

    @Test func unknownSubjectsAndTypesAreAnsweredAndChangeNothing() async throws {
        try await IdentityHarness.run { harness in
            let stranger = try await self.send(harness, try await self.payload(harness, subject: uniqueSubject(), type: "consent-revoked"))
            #expect(stranger.outcome == .unknownSubject)
            #expect(stranger.followUp == AppleNotificationFollowUp.none)
            #expect(stranger.userID == nil)
            let subject = uniqueSubject()
            let user = try await harness.signInApple(subject: subject).user
            let novel = try await self.send(harness, try await self.payload(harness, subject: subject, type: "account-frozen"))
            #expect(novel.outcome == .unknownType)
            #expect(novel.type == "unknown")
            #expect(novel.followUp == AppleNotificationFollowUp.none)
            #expect(try await harness.getUser(user.id).providers == [.apple])
        }
    }

    @Test func aJWSThatDoesNotVerifyIsABadRequestAndChangesNothing() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let user = try await harness.signInApple(subject: subject).user
            let jti = UUID().uuidString
            let defects: [TokenDefect] = [
                .wrongKey, .unknownKid, .expired, .notYetValid, .wrongAudience, .wrongIssuer, .algNone, .hs256WithPublicKey,
                .tamperedPayload, .garbage,
            ]
            for defect in defects {
                let payload = try await self.payload(harness, subject: subject, type: "account-delete", jti: jti, defect: defect)
                await expectRPCError(.badRequest) { _ = try await self.send(harness, payload) }
            }
            let stale = try await self.payload(
                harness, subject: subject, type: "account-delete", jti: jti, issuedAt: Date().addingTimeInterval(-8 * 86_400))
            await expectRPCError(.badRequest) { _ = try await self.send(harness, stale) }
            let wrongAudience = try await self.payload(harness, subject: subject, type: "account-delete", jti: jti, audience: "com.other")
            await expectRPCError(.badRequest) { _ = try await self.send(harness, wrongAudience) }
            await expectRPCError(.badRequest) { _ = try await self.send(harness, "") }
            #expect(try await harness.getUser(user.id).providers == [.apple])
            // The jti was never recorded: the genuine notification still applies.
            let genuine = try await self.send(harness, try await self.payload(harness, subject: subject, type: "account-delete", jti: jti))
            #expect(genuine.outcome == .applied)
        }
    }
}
