import CompactJSON
import Foundation
import JWTKit
import Testing
import TextCoding

@testable import IdentityService

/// A provider token's `kid` and `alg` are read by hand (`JWSHeader`) from a header in the plain
/// spelling, and exactly as JWTKit's parser reads them; any other header is left to JWTKit.
@Suite struct JWSHeaderTests {
    /// A token with `header` as its first segment, and a payload and signature JWTKit's parser
    /// takes (the signature is not checked by parsing).
    static func token(header: String, payload: String = #"{"sub":"s"}"#) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "." + Base64URL.encode([1, 2, 3])
    }

    /// What JWTKit's parser (with identity's decoder) reads of the token's header.
    static func jwtKit(_ token: String) throws -> JWSHeader {
        let header = try CompactJWTJSONDecoder.parser.parse(Array(token.utf8), as: UnverifiedPayload.self).header
        return JWSHeader(kid: header.kid, alg: header.alg)
    }

    @Test(arguments: [
        #"{"alg":"RS256","kid":"key-1","typ":"JWT"}"#,
        #"{"kid":"W6WcOKB","alg":"RS256"}"#,
        #" { "typ" : "JWT" , "alg" : "RS256" , "kid" : "a\/b\u00e9\n" } "#,
        #"{"alg":"ES256","kid":"k","x5t":"abc","crit":["exp"],"jwk":{"kty":"RSA","n":"AQAB"},"n":1.5e3,"b":false,"z":null}"#,
        #"{"alg":"RS256"}"#,
        #"{"kid":"only-kid"}"#,
        #"{}"#,
        #"{"kid":"","alg":""}"#,
        #"{"kid":"😀 ☃ café","alg":"RS256"}"#,
    ])
    func aPlainHeaderIsReadByHandAsJWTKitReadsIt(header: String) throws {
        let token = Self.token(header: header)
        let plain = try #require(JWSHeader(plainHeaderOf: token))
        #expect(plain == (try Self.jwtKit(token)))
    }

    @Test func theMembersAreTheHeadersOwn() throws {
        let plain = try #require(JWSHeader(plainHeaderOf: Self.token(header: #"{"typ":"JWT","kid":"k\"1","alg":"RS256"}"#)))
        #expect(plain == JWSHeader(kid: "k\"1", alg: "RS256"))
    }

    /// Headers the hand reader leaves alone: a repeated member (which JSON decoders read
    /// differently), a `kid` or `alg` that is not a string, JSON that is not an object or is
    /// malformed, base64url with padding or outside its alphabet, a token without a dot.
    @Test(arguments: [
        Self.token(header: #"{"kid":"a","alg":"RS256","kid":"b"}"#),
        Self.token(header: #"{"alg":"RS256","alg":"none","kid":"a"}"#),
        Self.token(header: #"{"kid":null,"alg":"RS256"}"#),
        Self.token(header: #"{"kid":7,"alg":"RS256"}"#),
        Self.token(header: #"{"kid":"a","alg":["RS256"]}"#),
        Self.token(header: #"["kid","alg"]"#),
        Self.token(header: #"{"kid":"a","alg":"RS256"} x"#),
        Self.token(header: #"{"kid":"a","alg":"RS256""#),
        Self.token(header: "{\"kid\":\"\u{1}\",\"alg\":\"RS256\"}"),
        "eyJhbGciOiJSUzI1NiIsImtpZCI6ImEifQ==.e30.AQID",
        "eyJhbGciOiJSUzI1NiIsImtpZCI6ImEifQ*.e30.AQID",
        Base64URL.encode(Array(#"{"kid":"a","alg":"RS256"}"#.utf8)),
        "",
    ])
    func anyOtherHeaderIsLeftToJWTKit(token: String) {
        #expect(JWSHeader(plainHeaderOf: token) == nil)
    }

    /// What JWTKit reads of a header the hand reader leaves alone is what the verifier uses:
    /// the header of a padded first segment, which JWTKit's parser accepts, still names its key.
    @Test func jwtKitReadsWhatTheHandReaderLeaves() throws {
        let token = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImEifQ==.e30.AQID"
        #expect(try Self.jwtKit(token) == JWSHeader(kid: "a", alg: "RS256"))
    }
}
