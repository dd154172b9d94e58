import Foundation
import Testing

@testable import Gateway

@Suite("Access token handling")
struct AccessTokenTests {
    @Test func bearerHeaderParsing() {
        #expect(AuthMiddleware.bearerToken("Bearer abc.def.ghi") == "abc.def.ghi")
        #expect(AuthMiddleware.bearerToken("bearer   abc  ") == "abc")
        #expect(AuthMiddleware.bearerToken("BEARER x") == "x")
        #expect(AuthMiddleware.bearerToken("Bearer ") == nil)
        #expect(AuthMiddleware.bearerToken("Bearer    ") == nil)
        #expect(AuthMiddleware.bearerToken("Basic abc") == nil)
        #expect(AuthMiddleware.bearerToken("Bearerabc") == nil)
    }

    @Test func dpopHeaderParsing() {
        #expect(AuthMiddleware.credentials("DPoP abc.def.ghi").map { $0.0 == .dpop && $0.1 == "abc.def.ghi" } == true)
        #expect(AuthMiddleware.credentials("dpop  x ").map { $0.0 == .dpop && $0.1 == "x" } == true)
        #expect(AuthMiddleware.credentials("Bearer x").map { $0.0 == .bearer && $0.1 == "x" } == true)
        #expect(AuthMiddleware.credentials("DPoP ") == nil)
        #expect(AuthMiddleware.credentials("DPoPx") == nil)
        #expect(AuthMiddleware.credentials("Basic x") == nil)
    }

    @Test func verifiedTokensExpireAndDieWithTheKeySet() {
        let cache = VerifiedTokenCache(capacity: 2, maximumAge: 10_000)
        let token = VerifiedToken(caller: Caller(userID: UUID(), sessionID: UUID(), isAdmin: false), issuedAt: 1000)
        cache.insert(token, for: "a", expiresAt: 1900, now: 1000, keyGeneration: 1)
        #expect(cache.lookup("a", now: 1100, leeway: 0, keyGeneration: 1)?.caller.userID == token.caller.userID)
        // Another key set: checked again.
        #expect(cache.lookup("a", now: 1100, leeway: 0, keyGeneration: 2) == nil)
        // Past its expiry (plus leeway): gone.
        #expect(cache.lookup("a", now: 1905, leeway: 10, keyGeneration: 1) != nil)
        #expect(cache.lookup("a", now: 1911, leeway: 10, keyGeneration: 1) == nil)
        #expect(cache.lookup("a", now: 1200, leeway: 0, keyGeneration: 1) == nil)
        // Verified too long ago: checked again even though the token still lives.
        let young = VerifiedTokenCache(capacity: 2, maximumAge: 300)
        young.insert(token, for: "b", expiresAt: 5000, now: 1000, keyGeneration: 1)
        #expect(young.lookup("b", now: 1299, leeway: 0, keyGeneration: 1) != nil)
        #expect(young.lookup("b", now: 1301, leeway: 0, keyGeneration: 1) == nil)
        // Bounded: a full cache is emptied before the next insert.
        cache.insert(token, for: "c", expiresAt: 5000, now: 1000, keyGeneration: 1)
        cache.insert(token, for: "d", expiresAt: 5000, now: 1000, keyGeneration: 1)
        cache.insert(token, for: "e", expiresAt: 5000, now: 1000, keyGeneration: 1)
        #expect(cache.lookup("c", now: 1001, leeway: 0, keyGeneration: 1) == nil)
        #expect(cache.lookup("e", now: 1001, leeway: 0, keyGeneration: 1) != nil)
    }
}
