import Foundation
import IdentityAPI
import IdentityService
import MockIdentityProvider
import Testing

@Suite struct GoogleSignInTests {
    @Test func anIDTokenSignsInAndCarriesTheName() async throws {
        try await IdentityHarness.run { harness in
            let email = uniqueEmail()
            let result = try await harness.signInGoogle(subject: uniqueSubject(), email: email, name: "Alan Turing")
            #expect(result.isNewUser)
            #expect(result.user.email == email && result.user.emailVerified)
            #expect(result.user.displayName == "Alan Turing")
            #expect(result.user.providers == [.google])
        }
    }

    @Test func bothGoogleIssuerSpellingsAreAccepted() async throws {
        try await IdentityHarness.run { harness in
            let token = try await harness.googleToken(subject: uniqueSubject(), issuer: "accounts.google.com")
            _ = try await harness.signIn(ProviderCredential(provider: .google, identityToken: token))
        }
    }

    @Test func anIDTokenPresentedByAnotherClientIsRejected() async throws {
        try await IdentityHarness.run { harness in
            let token = try await harness.googleToken(subject: uniqueSubject(), authorizedParty: "someone-else.apps.googleusercontent.com")
            await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .google, identityToken: token))
            }
        }
    }

    @Test func theIDTokenMayArriveAsIdToken() async throws {
        try await IdentityHarness.run { harness in
            struct Params: Encodable, Sendable {
                var provider = "google"
                var id_token: String
            }
            let token = try await harness.googleToken(subject: uniqueSubject())
            let result = try await harness.client.call(Identity.signIn.name, Params(id_token: token), as: SignInResult.self)
            #expect(result.isNewUser)
        }
    }

    @Test func anAccessTokenIsAcceptedAfterTokeninfoConfirmsOurAudience() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let email = uniqueEmail()
            let accessToken = await harness.mock.mintGoogleAccessToken(
                GoogleAccessTokenGrant(subject: subject, audience: IdentityHarness.googleAudience, email: email, name: "Barbara Liskov"))
            let result = try await harness.signIn(ProviderCredential(provider: .google, accessToken: accessToken))
            #expect(result.user.email == email && result.user.displayName == "Barbara Liskov")
            let log = await harness.mock.callLog
            #expect(log.tokenInfoCalls == 1 && log.userInfoCalls == 1)
            // The same Google account through an ID token is the same user.
            let viaIDToken = try await harness.signInGoogle(subject: subject)
            #expect(viaIDToken.user.id == result.user.id)
        }
    }

    @Test func anAccessTokenIssuedToAnotherClientIsRejectedBeforeUserinfo() async throws {
        try await IdentityHarness.run { harness in
            let accessToken = await harness.mock.mintGoogleAccessToken(
                GoogleAccessTokenGrant(subject: uniqueSubject(), audience: "another-app.apps.googleusercontent.com"))
            await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .google, accessToken: accessToken))
            }
            #expect(await harness.mock.callLog.userInfoCalls == 0)
        }
    }

    @Test func anUnknownOrExpiredAccessTokenIsRejected() async throws {
        try await IdentityHarness.run { harness in
            await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .google, accessToken: "ya29.made-up"))
            }
            let expired = await harness.mock.mintGoogleAccessToken(
                GoogleAccessTokenGrant(
                    subject: uniqueSubject(), audience: IdentityHarness.googleAudience, expiresAt: Date().addingTimeInterval(-5)))
            await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .google, accessToken: expired))
            }
        }
    }

    @Test func aProviderWithoutAudiencesIsNotEnabled() async throws {
        try await IdentityHarness.run(environment: ["GOOGLE_AUDIENCES": ""]) { harness in
            let token = try await harness.googleToken(subject: uniqueSubject())
            await expectRPCError(.badRequest) {
                _ = try await harness.signIn(ProviderCredential(provider: .google, identityToken: token))
            }
        }
    }
}
