import IdentityAPI
import Foundation
import IdentityService
import MockIdentityProvider
import Testing

@Suite struct BadTokenTests {
    @Test(arguments: TokenDefect.allCases)
    func everyBadAppleTokenIsRejectedAsInvalid(defect: TokenDefect) async throws {
        try await IdentityHarness.run { harness in
            let token = try await harness.appleToken(subject: uniqueSubject(), email: uniqueEmail(), defect: defect)
            let error = await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .apple, identityToken: token))
            }
            #expect(error?.retryable == false)
            #expect(error.map { !$0.message.contains(token) || token.isEmpty } ?? true)
        }
    }

    @Test(arguments: TokenDefect.allCases)
    func everyBadGoogleTokenIsRejectedAsInvalid(defect: TokenDefect) async throws {
        try await IdentityHarness.run { harness in
            let token = try await harness.googleToken(subject: uniqueSubject(), defect: defect)
            await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .google, identityToken: token))
            }
        }
    }

    @Test func anAppleTokenIsNotAcceptedAsAGoogleOne() async throws {
        try await IdentityHarness.run { harness in
            let token = try await harness.appleToken(subject: uniqueSubject())
            await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .google, identityToken: token))
            }
        }
    }

    @Test func aTokenSlightlyPastExpiryIsAcceptedWithinTheLeeway() async throws {
        try await IdentityHarness.run { harness in
            let token = try await harness.mock.mintIdentityToken(
                .apple,
                MintRequest(
                    subject: uniqueSubject(), audience: IdentityHarness.appleAudience,
                    issuedAt: Date().addingTimeInterval(-600), lifetimeSeconds: 590))
            _ = try await harness.signIn(ProviderCredential(provider: .apple, identityToken: token))
            harness.clock.advance(by: 120)
            await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .apple, identityToken: token))
            }
        }
    }

    @Test func aTokenIssuedSlightlyInTheFutureIsAcceptedWithinTheLeeway() async throws {
        try await IdentityHarness.run { harness in
            let token = try await harness.mock.mintIdentityToken(
                .google,
                MintRequest(
                    subject: uniqueSubject(), audience: IdentityHarness.googleAudience,
                    issuedAt: Date().addingTimeInterval(30)))
            _ = try await harness.signIn(ProviderCredential(provider: .google, identityToken: token))
        }
    }
}
