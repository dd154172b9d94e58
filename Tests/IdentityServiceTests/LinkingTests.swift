import Foundation
import IdentityAPI
import IdentityService
import MockIdentityProvider
import ServiceProtocol
import Testing

@Suite struct LinkingTests {
    @Test func aVerifiedEmailJoinsANewProviderToTheExistingUser() async throws {
        try await IdentityHarness.run { harness in
            let email = uniqueEmail()
            let apple = try await harness.signInApple(subject: uniqueSubject(), email: email)
            let google = try await harness.signInGoogle(subject: uniqueSubject(), email: email.uppercased())
            #expect(!google.isNewUser)
            #expect(google.user.id == apple.user.id)
            #expect(google.user.providers == [.apple, .google])
        }
    }

    /// Only ASCII letters are folded: a Unicode case pair or a non-ASCII address never links
    /// by itself (issue 14 item 4).
    @Test func emailsMatchByASCIICaseOnlyAndNonASCIIAddressesNeverJoin() async throws {
        try await IdentityHarness.run { harness in
            let local = "k\(UUID().uuidString.prefix(8).lowercased())"
            // The Kelvin sign (U+212A) folds to "k" under Unicode rules, not under ASCII ones.
            let apple = try await harness.signInApple(subject: uniqueSubject(), email: "\(local)@example.com")
            let kelvin = try await harness.signInGoogle(subject: uniqueSubject(), email: "\u{212A}\(local.dropFirst())@example.com")
            #expect(kelvin.isNewUser)
            #expect(kelvin.user.id != apple.user.id)
            // A non-ASCII address does not join even its exact twin.
            let accented = "j\u{00F6}rg-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let first = try await harness.signInApple(subject: uniqueSubject(), email: accented)
            let second = try await harness.signInGoogle(subject: uniqueSubject(), email: accented)
            #expect(second.isNewUser)
            #expect(second.user.id != first.user.id)
        }
    }

    /// A user's stored email follows the provider's verified email, when it came from that
    /// provider's identity (issue 14 item 4).
    @Test func theStoredEmailFollowsTheProvidersVerifiedEmail() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let first = try await harness.signInGoogle(subject: subject, email: uniqueEmail())
            let changed = uniqueEmail()
            let again = try await harness.signInGoogle(subject: subject, email: changed)
            #expect(again.user.id == first.user.id)
            #expect(again.user.email == changed)
            #expect(try await harness.getUser(first.user.id).email == changed)
            // An unverified new address is not followed.
            let unverified = try await harness.signInGoogle(subject: subject, email: uniqueEmail(), emailVerified: .bool(false))
            #expect(unverified.user.email == changed)
            // A linked identity whose email differs from the user's does not take it over.
            let appleSubject = uniqueSubject()
            let appleToken = try await harness.appleToken(subject: appleSubject, email: uniqueEmail())
            _ = try await harness.client.call(
                Identity.link,
                LinkParams(userID: first.user.id, credential: ProviderCredential(provider: .apple, identityToken: appleToken)))
            let apple = try await harness.signInApple(subject: appleSubject, email: uniqueEmail())
            #expect(apple.user.email == changed)
        }
    }

    @Test func anUnverifiedEmailNeverJoins() async throws {
        try await IdentityHarness.run { harness in
            let email = uniqueEmail()
            let apple = try await harness.signInApple(subject: uniqueSubject(), email: email)
            let google = try await harness.signInGoogle(subject: uniqueSubject(), email: email, emailVerified: .bool(false))
            #expect(google.isNewUser)
            #expect(google.user.id != apple.user.id)
        }
    }

    @Test func anExistingUserWithAnUnverifiedEmailIsNotJoined() async throws {
        try await IdentityHarness.run { harness in
            let email = uniqueEmail()
            let google = try await harness.signInGoogle(subject: uniqueSubject(), email: email, emailVerified: .string("false"))
            let apple = try await harness.signInApple(subject: uniqueSubject(), email: email)
            #expect(apple.isNewUser && apple.user.id != google.user.id)
        }
    }

    @Test func anApplePrivateRelayEmailNeverJoins() async throws {
        try await IdentityHarness.run { harness in
            let relay = "r\(UUID().uuidString.prefix(10).lowercased())@privaterelay.appleid.com"
            let google = try await harness.signInGoogle(subject: uniqueSubject(), email: relay)
            let apple = try await harness.signInApple(subject: uniqueSubject(), email: relay, isPrivateEmail: .bool(true))
            #expect(apple.isNewUser && apple.user.id != google.user.id)
        }
    }

    @Test func automaticLinkingCanBeSwitchedOff() async throws {
        try await IdentityHarness.run(environment: ["AUTO_LINK_BY_EMAIL": "false"]) { harness in
            let email = uniqueEmail()
            let apple = try await harness.signInApple(subject: uniqueSubject(), email: email)
            let google = try await harness.signInGoogle(subject: uniqueSubject(), email: email)
            #expect(google.isNewUser && google.user.id != apple.user.id)
        }
    }

    @Test func aSignedInUserLinksAndUnlinksAnotherProvider() async throws {
        try await IdentityHarness.run { harness in
            let user = try await harness.signInApple(subject: uniqueSubject(), email: uniqueEmail()).user
            let googleSubject = uniqueSubject()
            let token = try await harness.googleToken(subject: googleSubject, email: uniqueEmail())
            let linked = try await harness.client.call(
                Identity.link,
                LinkParams(userID: user.id, credential: ProviderCredential(provider: .google, identityToken: token)))
            #expect(linked.providers == [.apple, .google])
            #expect(linked.identities?.contains { $0.provider == .google && $0.subject == googleSubject } == true)
            let viaGoogle = try await harness.signInGoogle(subject: googleSubject)
            #expect(viaGoogle.user.id == user.id)
            let unlinked = try await harness.client.call(
                Identity.unlink, UnlinkParams(userID: user.id, provider: .google))
            #expect(unlinked.providers == [.apple])
            let afterUnlink = try await harness.signInGoogle(subject: googleSubject)
            #expect(afterUnlink.isNewUser && afterUnlink.user.id != user.id)
        }
    }

    @Test func linkingAnIdentityOfAnotherUserIsAConflict() async throws {
        try await IdentityHarness.run { harness in
            let owner = try await harness.signInGoogle(subject: uniqueSubject()).user
            let ownerGoogle = try #require(try await harness.getUser(owner.id).identities?.first)
            let other = try await harness.signInApple(subject: uniqueSubject()).user
            let token = try await harness.googleToken(subject: ownerGoogle.subject)
            await expectRPCError(.identityAlreadyLinked) {
                _ = try await harness.client.call(
                    Identity.link,
                    LinkParams(userID: other.id, credential: ProviderCredential(provider: .google, identityToken: token)))
            }
            #expect(try await harness.getUser(owner.id).providers == [.google])
        }
    }

    @Test func linkingTheSameIdentityTwiceIsHarmless() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let user = try await harness.signInApple(subject: subject).user
            let token = try await harness.appleToken(subject: subject)
            let again = try await harness.client.call(
                Identity.link,
                LinkParams(userID: user.id, credential: ProviderCredential(provider: .apple, identityToken: token)))
            #expect(again.providers == [.apple])
        }
    }

    @Test func aSecondAccountOfTheSameProviderCannotBeLinked() async throws {
        try await IdentityHarness.run { harness in
            let user = try await harness.signInApple(subject: uniqueSubject()).user
            let token = try await harness.appleToken(subject: uniqueSubject())
            await expectRPCError(.conflict) {
                _ = try await harness.client.call(
                    Identity.link,
                    LinkParams(userID: user.id, credential: ProviderCredential(provider: .apple, identityToken: token)))
            }
        }
    }

    @Test func theLastIdentityCannotBeUnlinked() async throws {
        try await IdentityHarness.run { harness in
            let user = try await harness.signInApple(subject: uniqueSubject()).user
            await expectRPCError(.lastIdentity) {
                _ = try await harness.client.call(
                    Identity.unlink, UnlinkParams(userID: user.id, provider: .apple))
            }
            await expectRPCError(.notFound) {
                _ = try await harness.client.call(
                    Identity.unlink, UnlinkParams(userID: user.id, provider: .google))
            }
        }
    }

    @Test func anInactiveUserCannotSignInOrLink() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let email = uniqueEmail()
            let user = try await harness.signInApple(subject: subject, email: email).user
            let inactive = try await harness.client.call(
                Identity.setActive, SetActiveParams(userID: user.id, active: false))
            #expect(!inactive.isActive)
            await expectRPCError(.userInactive) { _ = try await harness.signInApple(subject: subject) }
            // Nor through a new provider that would join it by email.
            await expectRPCError(.userInactive) { _ = try await harness.signInGoogle(subject: uniqueSubject(), email: email) }
            let token = try await harness.googleToken(subject: uniqueSubject())
            await expectRPCError(.userInactive) {
                _ = try await harness.client.call(
                    Identity.link,
                    LinkParams(userID: user.id, credential: ProviderCredential(provider: .google, identityToken: token)))
            }
            _ = try await harness.client.call(
                Identity.setActive, SetActiveParams(userID: user.id, active: true))
            #expect(try await harness.signInApple(subject: subject).user.id == user.id)
        }
    }

    @Test func simultaneousFirstSignInsOfOneIdentityMakeOneUser() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let tokens = try await (0..<16).asyncMap { _ in try await harness.appleToken(subject: subject, email: uniqueEmail()) }
            let results = try await withThrowingTaskGroup(of: SignInResult.self) { group in
                for token in tokens {
                    group.addTask { try await harness.signIn(ProviderCredential(provider: .apple, identityToken: token)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(results.map(\.user.id)).count == 1)
            #expect(results.filter(\.isNewUser).count == 1)
        }
    }

    @Test func simultaneousFirstSignInsWithOneEmailMakeOneUser() async throws {
        try await IdentityHarness.run { harness in
            let email = uniqueEmail()
            let apple = try await harness.appleToken(subject: uniqueSubject(), email: email)
            let google = try await harness.googleToken(subject: uniqueSubject(), email: email)
            async let first = harness.signIn(ProviderCredential(provider: .apple, identityToken: apple))
            async let second = harness.signIn(ProviderCredential(provider: .google, identityToken: google))
            let (a, b) = try await (first, second)
            #expect(a.user.id == b.user.id)
            #expect([a.isNewUser, b.isNewUser].filter { $0 }.count == 1)
        }
    }
}
