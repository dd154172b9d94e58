import Foundation
import Testing

@testable import Gateway

/// The rules of RFC 7515, 7519 and 8725 behind a valid signature (issue 49): every token here
/// is signed with the published key, as a holder of the signing key would sign it, so what is
/// refused is refused for what the token says, not for its signature. Each case has a control
/// that differs in the one rule only and is accepted.
@Suite struct AccessTokenConformanceTests {
    /// A header for the newest key, with `extra` members (JSON text, with a leading comma).
    func header(_ keys: PublishedKeys, extra: String = "") -> String {
        #"{"alg":"RS256","typ":"JWT","kid":"\#(keys.kid)"\#(extra)}"#
    }

    /// Valid claims as JSON text, times in whole seconds from now; `extra` members appended,
    /// `times` replacing the `iat` and `exp` members when given.
    func claims(sub: String = UUID().uuidString.lowercased(), times: String? = nil, extra: String = "") -> String {
        let now = Int(Date().timeIntervalSince1970)
        let times = times ?? #""iat":\#(now),"exp":\#(now + 900)"#
        return #"{"iss":"\#(AccessTokenVerifierTests.issuer)","aud":"\#(AccessTokenVerifierTests.audience)","sub":"\#(sub)","sid":"\#(UUID().uuidString.lowercased())",\#(times),"jti":"\#(UUID().uuidString)"\#(extra)}"#
    }

    @Test func theControlTokensAreAccepted() async throws {
        try await PublishedKeys.run { keys in
            let verifier = keys.verifier(leeway: 60)
            let sub = UUID().uuidString.lowercased()
            let verified = try await verifier.verify(try keys.signRaw(header: self.header(keys), claims: self.claims(sub: sub)), logger: keys.logger)
            #expect(verified.caller.userID.uuidString.lowercased() == sub)
            // A past nbf, and one within the leeway, are fine.
            let now = Int(Date().timeIntervalSince1970)
            for nbf in [now - 3600, now + 30] {
                let token = try keys.signRaw(header: self.header(keys), claims: self.claims(extra: #","nbf":\#(nbf)"#))
                _ = try await verifier.verify(token, logger: keys.logger)
            }
        }
    }

    /// RFC 7515 §4.1.11: a critical extension the gateway does not understand makes the token
    /// invalid, and so does a `crit` that is not a non-empty list of names in the header.
    @Test func anUnknownOrMalformedCritIsRefused() async throws {
        try await PublishedKeys.run { keys in
            let verifier = keys.verifier(leeway: 60)
            for extra in [
                #","crit":["x-unknown"],"x-unknown":true"#,
                #","crit":["b64"],"b64":false"#,
                #","crit":[]"#,
                #","crit":"x-unknown","x-unknown":true"#,
                #","crit":["x-missing"]"#,
                #","crit":["kid"]"#,
                #","crit":[1]"#,
                #","crit":["x-a","x-a"],"x-a":1"#,
            ] {
                let token = try keys.signRaw(header: self.header(keys, extra: extra), claims: self.claims())
                await expectUnauthorized { try await verifier.verify(token, logger: keys.logger) }
            }
            // The control: an extension header that is not critical is ignored.
            _ = try await verifier.verify(try keys.signRaw(header: self.header(keys, extra: #","x-unknown":true"#), claims: self.claims()), logger: keys.logger)
        }
    }

    /// RFC 7519 §4: duplicate claim names are refused (the gateway read the first `sub`, the
    /// rest of the system the last), however the name is spelled, and so are duplicate header
    /// members and duplicates in a nested object.
    @Test func duplicateMemberNamesAreRefused() async throws {
        try await PublishedKeys.run { keys in
            let verifier = keys.verifier(leeway: 60)
            let other = UUID().uuidString.lowercased()
            for extra in [#","sub":"\#(other)""#, #","s\u0075b":"\#(other)""#, #","jti":"again""#, #","x":{"a":1,"a":2}"#] {
                let token = try keys.signRaw(header: self.header(keys), claims: self.claims(extra: extra))
                await expectUnauthorized { try await verifier.verify(token, logger: keys.logger) }
            }
            for extra in [#","kid":"\#(keys.kid)""#, #","alg":"RS256""#, #","typ":"JWT""#] {
                let token = try keys.signRaw(header: self.header(keys, extra: extra), claims: self.claims())
                await expectUnauthorized { try await verifier.verify(token, logger: keys.logger) }
            }
        }
    }

    /// RFC 8725 §3.1: the header's `alg` must be the algorithm of the key its `kid` names;
    /// JWTKit verifies with the key's own algorithm whatever the header says.
    @Test func aHeaderNamingAnotherAlgorithmThanItsKeysIsRefused() async throws {
        try await PublishedKeys.run { keys in
            let verifier = keys.verifier(leeway: 60)
            for alg in ["RS384", "RS512", "PS256", "ES256", "rs256"] {
                let token = try keys.signRaw(header: #"{"alg":"\#(alg)","typ":"JWT","kid":"\#(keys.kid)"}"#, claims: self.claims())
                await expectUnauthorized { try await verifier.verify(token, logger: keys.logger) }
            }
            let missing = try keys.signRaw(header: #"{"typ":"JWT","kid":"\#(keys.kid)"}"#, claims: self.claims())
            await expectUnauthorized { try await verifier.verify(missing, logger: keys.logger) }
        }
    }

    /// RFC 7519 §4.1.5: a token whose `nbf` is ahead beyond the leeway is not valid yet.
    @Test func aFutureNotBeforeIsRefused() async throws {
        try await PublishedKeys.run { keys in
            let now = Int(Date().timeIntervalSince1970)
            let token = try keys.signRaw(header: self.header(keys), claims: self.claims(extra: #","nbf":\#(now + 3600)"#))
            await expectUnauthorized { try await keys.verifier(leeway: 60).verify(token, logger: keys.logger) }
            let justAhead = try keys.signRaw(header: self.header(keys), claims: self.claims(extra: #","nbf":\#(now + 120)"#))
            await expectUnauthorized { try await keys.verifier(leeway: 0).verify(justAhead, logger: keys.logger) }
        }
    }

    /// `exp`, `iat` and `nbf` are whole seconds a date can hold: `"exp": 1e300` was accepted
    /// as valid until the end of time.
    @Test func timesThatAreNotWholeSecondsInRangeAreRefused() async throws {
        try await PublishedKeys.run { keys in
            let verifier = keys.verifier(leeway: 60)
            let now = Int(Date().timeIntervalSince1970)
            for times in [
                #""iat":\#(now),"exp":1e300"#,
                #""iat":\#(now),"exp":1e10"#,
                #""iat":\#(now),"exp":"\#(now + 900)""#,
                #""iat":\#(now),"exp":\#(now + 900).5"#,
                #""iat":\#(now),"exp":99999999999999999999"#,
                #""iat":\#(now),"exp":253402300800"#,
                #""iat":\#(now),"exp":-1"#,
                #""iat":\#(now).25,"exp":\#(now + 900)"#,
                #""iat":null,"exp":\#(now + 900)"#,
                #""iat":\#(now),"exp":true"#,
            ] {
                let token = try keys.signRaw(header: self.header(keys), claims: self.claims(times: times))
                await expectUnauthorized { try await verifier.verify(token, logger: keys.logger) }
            }
            let nbf = try keys.signRaw(header: self.header(keys), claims: self.claims(extra: #","nbf":"0""#))
            await expectUnauthorized { try await verifier.verify(nbf, logger: keys.logger) }
            // The control: the latest time accepted is the end of year 9999.
            _ = try await verifier.verify(
                try keys.signRaw(header: self.header(keys), claims: self.claims(times: #""iat":\#(now),"exp":253402300799"#)), logger: keys.logger)
        }
    }
}
