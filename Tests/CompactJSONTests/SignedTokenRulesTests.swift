import CompactJSON
import Testing
import TextCoding

/// The rules every reader of a signed token applies before trusting it (RFC 7515, RFC 8725):
/// one strict JSON object per part, `crit` only with what the reader understands, time claims
/// as whole seconds in range, `nbf` not ahead beyond the leeway.
@Suite struct SignedTokenRulesTests {
    /// `header.claims.signature` with the two JSON texts as they are (the signature is not checked here).
    func token(_ header: String, _ claims: String) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + ".c2ln"
    }

    let now = 1_800_000_000.0

    @Test func aPlainTokenPasses() throws {
        try SignedTokenRules.check(token(#"{"alg":"RS256","kid":"k"}"#, #"{"sub":"u","iat":1799999990,"exp":1800000600}"#), now: now, leeway: 60)
    }

    @Test(arguments: ["a.b", "a.b.c.d", "!!.e30.x", ""])
    func notThreeBase64URLSegmentsIsRefused(_ text: String) {
        #expect(throws: SignedTokenRules.Violation.notCompact) { try SignedTokenRules.check(text, now: 1, leeway: 0) }
    }

    @Test func aMemberNamedTwiceIsRefusedInEitherPart() {
        #expect(throws: SignedTokenRules.Violation.notAnObject(part: "header")) {
            try SignedTokenRules.check(token(#"{"alg":"RS256","alg":"none"}"#, "{}"), now: now, leeway: 60)
        }
        #expect(throws: SignedTokenRules.Violation.notAnObject(part: "claims")) {
            try SignedTokenRules.check(token(#"{"alg":"RS256"}"#, #"{"sub":"a","sub":"b"}"#), now: now, leeway: 60)
        }
        #expect(throws: SignedTokenRules.Violation.notAnObject(part: "claims")) {
            try SignedTokenRules.check(token(#"{"alg":"RS256"}"#, "[1]"), now: now, leeway: 60)
        }
    }

    @Test func critMustNameOnlyUnderstoodExtensions() throws {
        let header = #"{"alg":"RS256","crit":["exp-ext"],"exp-ext":1}"#
        #expect(throws: SignedTokenRules.Violation.self) { try SignedTokenRules.check(token(header, "{}"), now: now, leeway: 0) }
        try SignedTokenRules.check(token(header, "{}"), now: now, leeway: 0, understood: ["exp-ext"])
        // A registered name, an empty list, or an extension the header lacks: malformed.
        for bad in [#"{"alg":"RS256","crit":["alg"]}"#, #"{"alg":"RS256","crit":[]}"#, #"{"alg":"RS256","crit":["x"]}"#] {
            #expect(throws: SignedTokenRules.Violation.self) { try SignedTokenRules.check(token(bad, "{}"), now: now, leeway: 0, understood: ["x"]) }
        }
    }

    @Test(arguments: [#"{"exp":1.5}"#, #"{"iat":"1"}"#, #"{"nbf":-1}"#, #"{"exp":253402300800}"#, #"{"exp":1e3}"#])
    func timeClaimsAreWholeSecondsInRange(_ claims: String) {
        #expect(throws: SignedTokenRules.Violation.self) { try SignedTokenRules.check(token(#"{"alg":"RS256"}"#, claims), now: 1_800_000_000, leeway: 60) }
    }

    @Test func notBeforeIsHonouredWithTheLeeway() throws {
        let header = #"{"alg":"RS256"}"#
        try SignedTokenRules.check(token(header, #"{"nbf":1800000060}"#), now: now, leeway: 60)
        #expect(throws: SignedTokenRules.Violation.notYetValid) {
            try SignedTokenRules.check(token(header, #"{"nbf":1800000061}"#), now: now, leeway: 60)
        }
    }

    @Test func theLatestTimeIsTheLastSecondOfYear9999() throws {
        try SignedTokenRules.check(token(#"{"alg":"RS256"}"#, #"{"exp":\#(SignedTokenRules.latestTime)}"#), now: now, leeway: 0)
    }
}
