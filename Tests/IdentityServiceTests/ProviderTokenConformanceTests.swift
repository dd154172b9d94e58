import Foundation
import IdentityAPI
import IdentityService
import MockIdentityProvider
import Testing

/// The rules of RFC 7515, 7519 and 8725 behind a valid signature, for provider tokens (issue
/// 49): each token here is signed with the provider's own active key (`MockIdentityProvider.
/// signRaw`), so what is refused is refused for what it says. Each case has a control.
@Suite struct ProviderTokenConformanceTests {
    static let header = #"{"alg":"RS256","kid":"{kid}","typ":"JWT"}"#

    /// Apple identity-token claims as JSON text; `times` replaces `iat` and `exp`, `extra` is
    /// appended (with its leading comma).
    func appleClaims(subject: String, times: String? = nil, extra: String = "") -> String {
        let now = Int(Date().timeIntervalSince1970)
        let times = times ?? #""iat":\#(now),"exp":\#(now + 600)"#
        return #"{"iss":"https://appleid.apple.com","aud":"\#(IdentityHarness.appleAudience)","sub":"\#(subject)",\#(times)\#(extra)}"#
    }

    func signIn(_ harness: IdentityHarness, header: String = Self.header, claims: String) async throws -> SignInResult {
        let token = try await harness.mock.signRaw(.apple, header: header, claims: claims)
        return try await harness.signIn(ProviderCredential(provider: .apple, identityToken: token))
    }

    func expectRefused(_ harness: IdentityHarness, header: String = Self.header, claims: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        await expectRPCError(.invalidIdentityToken, sourceLocation: sourceLocation) {
            _ = try await self.signIn(harness, header: header, claims: claims)
        }
    }

    @Test func theControlSignsIn() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            #expect(try await self.signIn(harness, claims: self.appleClaims(subject: subject)).isNewUser)
            let now = Int(Date().timeIntervalSince1970)
            _ = try await self.signIn(harness, claims: self.appleClaims(subject: subject, extra: #","nbf":\#(now - 60)"#))
            _ = try await self.signIn(harness, header: #"{"alg":"RS256","kid":"{kid}","typ":"JWT","x-ext":1}"#, claims: self.appleClaims(subject: subject))
        }
    }

    /// An Apple token with a critical extension identity does not understand signed a user in.
    @Test func anUnknownOrMalformedCritIsRefused() async throws {
        try await IdentityHarness.run { harness in
            for extra in [#","crit":["x-ext"],"x-ext":1"#, #","crit":[]"#, #","crit":["x-missing"]"#, #","crit":["alg"]"#] {
                await self.expectRefused(harness, header: #"{"alg":"RS256","kid":"{kid}","typ":"JWT"\#(extra)}"#, claims: self.appleClaims(subject: uniqueSubject()))
            }
        }
    }

    @Test func duplicateMemberNamesAreRefused() async throws {
        try await IdentityHarness.run { harness in
            let first = uniqueSubject()
            let second = uniqueSubject()
            await self.expectRefused(harness, claims: self.appleClaims(subject: first, extra: #","sub":"\#(second)""#))
            await self.expectRefused(harness, claims: self.appleClaims(subject: first, extra: #","s\u0075b":"\#(second)""#))
            await self.expectRefused(harness, claims: self.appleClaims(subject: first, extra: #","aud":"\#(IdentityHarness.appleAudience)""#))
            await self.expectRefused(harness, header: #"{"alg":"RS256","kid":"{kid}","kid":"{kid}"}"#, claims: self.appleClaims(subject: first))
            // Nothing was created for either subject.
            let later = try await self.signIn(harness, claims: self.appleClaims(subject: second))
            #expect(later.isNewUser)
        }
    }

    @Test func aFutureNotBeforeAndOddTimesAreRefused() async throws {
        try await IdentityHarness.run { harness in
            let now = Int(Date().timeIntervalSince1970)
            await self.expectRefused(harness, claims: self.appleClaims(subject: uniqueSubject(), extra: #","nbf":\#(now + 3600)"#))
            for times in [
                #""iat":\#(now),"exp":1e300"#, #""iat":\#(now),"exp":"\#(now + 600)""#, #""iat":\#(now),"exp":\#(now + 600).5"#,
                #""iat":-5,"exp":\#(now + 600)"#, #""iat":\#(now),"exp":253402300800"#,
            ] {
                await self.expectRefused(harness, claims: self.appleClaims(subject: uniqueSubject(), times: times))
            }
        }
    }

    /// Apple's notifications go through the same check: a repeated `events` member is refused.
    @Test func aNotificationWithARepeatedMemberIsRefused() async throws {
        try await IdentityHarness.run { harness in
            let now = Int(Date().timeIntervalSince1970)
            func events(_ subject: String) -> String {
                #""{\"type\":\"consent-revoked\",\"sub\":\"\#(subject)\",\"event_time\":\#(now * 1000)}""#
            }
            let claims = #"{"iss":"https://appleid.apple.com","aud":"\#(IdentityHarness.appleAudience)","iat":\#(now),"jti":"\#(UUID().uuidString)","events":\#(events(uniqueSubject()))"#
            let control = try await harness.mock.signRaw(.apple, header: Self.header, claims: claims + "}")
            _ = try await harness.client.call(Identity.appleNotification, AppleNotificationParams(payload: control))
            let repeated = try await harness.mock.signRaw(.apple, header: Self.header, claims: claims + #","events":\#(events(uniqueSubject()))}"#)
            await expectRPCError(.badRequest) {
                _ = try await harness.client.call(Identity.appleNotification, AppleNotificationParams(payload: repeated))
            }
        }
    }
}
