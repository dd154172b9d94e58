import Foundation
import Testing

@testable import IdentityService

/// The pure rules, without a network or a database.
@Suite struct RuleTests {
    @Test func cacheControlMaxAgeIsReadFromAnyPosition() {
        #expect(CacheControl.maxAge("public, max-age=19830, must-revalidate, no-transform") == 19830)
        #expect(CacheControl.maxAge("max-age=0") == 0)
        #expect(CacheControl.maxAge("no-store") == 0)
        #expect(CacheControl.maxAge("public") == nil)
        #expect(CacheControl.maxAge(nil) == nil)
        #expect(CacheControl.maxAge("max-age=-5") == nil)
    }

    @Test func nonceRules() throws {
        let hashed = ClaimRules.sha256Hex("abc")
        #expect(hashed == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        try ClaimRules.checkNonce(requested: nil, inToken: nil)
        try ClaimRules.checkNonce(requested: "abc", inToken: hashed)
        try ClaimRules.checkNonce(requested: "abc", inToken: "abc")
        #expect(throws: IdentityError.self) { try ClaimRules.checkNonce(requested: "abc", inToken: hashed.uppercased()) }
        #expect(throws: IdentityError.self) { try ClaimRules.checkNonce(requested: nil, inToken: "abc") }
        #expect(throws: IdentityError.self) { try ClaimRules.checkNonce(requested: "abc", inToken: nil) }
    }

    @Test func timeRulesAllowTheLeewayAndNoMore() throws {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let rules = ClaimRules(issuers: ["iss"], leeway: 60, clock: IdentityClock { now })
        try rules.check(issuer: "iss", expires: now.addingTimeInterval(-59), issuedAt: now.addingTimeInterval(59))
        #expect(throws: IdentityError.invalidToken(reason: "expired")) {
            try rules.check(issuer: "iss", expires: now.addingTimeInterval(-61), issuedAt: now)
        }
        #expect(throws: IdentityError.invalidToken(reason: "issued in the future")) {
            try rules.check(issuer: "iss", expires: now.addingTimeInterval(600), issuedAt: now.addingTimeInterval(61))
        }
        #expect(throws: IdentityError.invalidToken(reason: "issuer")) {
            try rules.check(issuer: "other", expires: now.addingTimeInterval(600), issuedAt: now)
        }
    }

    @Test func relayAddressesNeverLinkByEmail() {
        var identity = VerifiedIdentity(
            provider: .apple, subject: "s", email: "a@privaterelay.appleid.com", emailVerified: true,
            isPrivateEmail: false, name: nil, audience: "a")
        #expect(!identity.mayLinkByEmail)
        identity.email = "a@example.com"
        #expect(identity.mayLinkByEmail)
        identity.isPrivateEmail = true
        #expect(!identity.mayLinkByEmail)
    }

    @Test func userCursorsRoundTripAndRejectJunk() {
        let cursor = UserCursor(createdMicros: 1_763_000_000_123_456, id: UUID())
        #expect(UserCursor(text: cursor.text) == cursor)
        #expect(UserCursor(text: "bm9wZQ") == nil)
        #expect(UserCursor(text: "***") == nil)
    }

    @Test func refreshTokensSealAndOpenOnlyWithTheKey() throws {
        let cipher = RefreshTokenCipher(key: Array(repeating: 7, count: 32))
        let sealed = try cipher.seal("r.secret-token")
        #expect(try cipher.open(sealed) == "r.secret-token")
        #expect(throws: (any Error).self) { try RefreshTokenCipher(key: Array(repeating: 8, count: 32)).open(sealed) }
    }
}
