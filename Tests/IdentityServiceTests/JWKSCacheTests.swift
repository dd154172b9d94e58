import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import IdentityAPI
import IdentityService
import MockIdentityProvider
import Testing

@Suite struct JWKSCacheTests {
    @Test func keysFetchedOnceServeManySignIns() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            for _ in 0..<5 { _ = try await harness.signInApple(subject: subject) }
            #expect(await harness.mock.jwksFetchCount(.apple) == 1)
        }
    }

    @Test func aRotatedProviderKeyIsPickedUpOnItsFirstToken() async throws {
        try await IdentityHarness.run(environment: ["JWKS_REFETCH_INTERVAL": "0"]) { harness in
            let subject = uniqueSubject()
            _ = try await harness.signInApple(subject: subject)
            let oldKid = try #require(await harness.mock.publishedKeyIDs(.apple).last)
            let newKid = try await harness.mock.rotateKeys(.apple, retiringOld: true)
            #expect(newKid != oldKid)
            let again = try await harness.signInApple(subject: subject)
            #expect(!again.isNewUser)
            #expect(await harness.mock.jwksFetchCount(.apple) == 2)
        }
    }

    @Test func aWithdrawnKeyIsRefusedAfterTheCacheExpires() async throws {
        try await IdentityHarness.run { harness in
            // Valid for a day, so that only the withdrawn key can make it fail.
            let oldToken = try await harness.appleToken(subject: uniqueSubject(), lifetimeSeconds: 86_400)
            _ = try await harness.signIn(ProviderCredential(provider: .apple, identityToken: oldToken))
            try await harness.mock.rotateKeys(.apple, retiringOld: true)
            harness.clock.advance(by: 3601)
            await expectRPCError(.invalidIdentityToken) {
                _ = try await harness.signIn(ProviderCredential(provider: .apple, identityToken: oldToken))
            }
        }
    }

    @Test func cacheControlMaxAgeDecidesWhenKeysAreFetchedAgain() async throws {
        var mockConfiguration = MockIdentityProvider.Configuration()
        mockConfiguration.jwksMaxAge = 300
        try await IdentityHarness.run(mockConfiguration: mockConfiguration) { harness in
            let subject = uniqueSubject()
            _ = try await harness.signInGoogle(subject: subject)
            harness.clock.advance(by: 290)
            _ = try await harness.signInGoogle(subject: subject)
            #expect(await harness.mock.jwksFetchCount(.google) == 1)
            harness.clock.advance(by: 20)
            _ = try await harness.signInGoogle(subject: subject)
            #expect(await harness.mock.jwksFetchCount(.google) == 2)
        }
    }

    @Test func aThousandTokensWithUnknownKidsCauseOneRefetchPerInterval() async throws {
        try await IdentityHarness.run(environment: ["JWKS_REFETCH_INTERVAL": "10"]) { harness in
            _ = try await harness.signInApple(subject: uniqueSubject())
            // The clock stands still, one interval after that first fetch: exactly one refetch is
            // allowed, however long the thousand calls take.
            harness.clock.freeze()
            harness.clock.advance(by: 10)
            let tokens = try await (0..<20).asyncMap { _ in
                try await harness.appleToken(subject: uniqueSubject(), defect: .unknownKid)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<1000 {
                    group.addTask {
                        await expectRPCError(.invalidIdentityToken) {
                            _ = try await harness.signIn(
                                ProviderCredential(provider: .apple, identityToken: tokens[index % tokens.count]))
                        }
                    }
                    if index % 50 == 49 { try await group.next() }
                }
                try await group.waitForAll()
            }
            #expect(await harness.mock.jwksFetchCount(.apple) == 2)
        }
    }

    @Test func anUnreachableJWKSIsServiceUnavailableNotAnInvalidToken() async throws {
        try await IdentityHarness.run { harness in
            await harness.mock.setJWKSAvailable(.apple, false)
            let token = try await harness.appleToken(subject: uniqueSubject())
            let error = await expectRPCError(.serviceUnavailable) {
                _ = try await harness.signIn(ProviderCredential(provider: .apple, identityToken: token))
            }
            #expect(error?.retryable == true)
        }
    }

    @Test func expiredKeysStillServeWhileTheProviderIsDown() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let token = try await harness.appleToken(subject: subject, lifetimeSeconds: 86_400)
            _ = try await harness.signIn(ProviderCredential(provider: .apple, identityToken: token))
            await harness.mock.setJWKSAvailable(.apple, false)
            harness.clock.advance(by: 7200)
            let again = try await harness.signIn(ProviderCredential(provider: .apple, identityToken: token))
            #expect(!again.isNewUser)
            #expect(await harness.mock.jwksFetchCount(.apple) == 2)
        }
    }

    @Test func theMockServesJWKSWithCacheControlOverHTTP() async throws {
        try await IdentityHarness.run { harness in
            let (data, response) = try await URLSession.shared.data(from: URL(string: harness.endpoints.googleJWKS)!)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.value(forHTTPHeaderField: "Cache-Control")?.contains("max-age=3600") == true)
            let jwks = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [[String: String]]])
            let key = try #require(jwks["keys"]?.first)
            #expect(key["kty"] == "RSA" && key["alg"] == "RS256" && key["kid"] != nil && key["n"] != nil)
        }
    }
}

extension Sequence where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
