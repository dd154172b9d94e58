import IdentityAPI
import Crypto
import Foundation
import IdentityService
import MockIdentityProvider
import Testing

@Suite struct NonceTests {
    static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    @Test func aTokenCarryingTheHashOfTheRequestNonceIsAccepted() async throws {
        try await IdentityHarness.run { harness in
            let nonce = "nonce-\(UUID())"
            let token = try await harness.appleToken(subject: uniqueSubject(), nonce: Self.sha256Hex(nonce))
            let result = try await harness.signIn(ProviderCredential(provider: .apple, identityToken: token, nonce: nonce))
            #expect(result.isNewUser)
        }
    }

    @Test func aTokenCarryingTheRequestNonceItselfIsAccepted() async throws {
        try await IdentityHarness.run { harness in
            let nonce = "nonce-\(UUID())"
            let token = try await harness.googleToken(subject: uniqueSubject(), nonce: nonce)
            _ = try await harness.signIn(ProviderCredential(provider: .google, identityToken: token, nonce: nonce))
        }
    }

    @Test func aDifferentNonceIsRejected() async throws {
        try await IdentityHarness.run { harness in
            let token = try await harness.appleToken(subject: uniqueSubject(), nonce: Self.sha256Hex("the-real-one"))
            await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .apple, identityToken: token, nonce: "another"))
            }
        }
    }

    @Test func aTokenNonceWithoutARequestNonceIsRejected() async throws {
        try await IdentityHarness.run { harness in
            let token = try await harness.appleToken(subject: uniqueSubject(), nonce: Self.sha256Hex("n"))
            await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .apple, identityToken: token))
            }
        }
    }

    @Test func aRequestNonceWithoutATokenNonceIsRejected() async throws {
        try await IdentityHarness.run { harness in
            let token = try await harness.googleToken(subject: uniqueSubject())
            await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .google, identityToken: token, nonce: "n"))
            }
        }
    }
}
