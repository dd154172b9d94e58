import Foundation
import JWTKit
import Testing
import TokensJWT

/// The access token's claims: the payload written by hand is JWTKit's encoder's, byte for
/// byte (what the gateway, `tokens` and other verifiers decode), and a token names its user and
/// session only for the issuer and audience it was made for.
@Suite struct AccessTokenClaimsTests {
    func claims(audience: [String] = ["latchkey-app"], issuer: String = "https://id.example/a", admin: Bool? = nil) -> AccessTokenClaims {
        AccessTokenClaims(
            iss: IssuerClaim(value: issuer), aud: AudienceClaim(value: audience),
            sub: SubjectClaim(value: "5C7F2A9E-1B0D-4F53-9D6A-3E2B1C0A9F8E"), sid: "0E1D2C3B-4A59-4687-9A1B-2C3D4E5F6A7B",
            iat: IssuedAtClaim(value: Date(timeIntervalSince1970: 1_800_000_000)),
            exp: ExpirationClaim(value: Date(timeIntervalSince1970: 1_800_000_900)), jti: IDClaim(value: "j/1"), adm: admin,
            iat_ms: 1_800_000_000_123)
    }

    /// Foundation's encoder on Linux writes members in no fixed order, so the comparison is of
    /// the parsed documents, and the hand-written one's order is checked on its own.
    @Test(arguments: [(["latchkey-app"], nil), (["a", "b/c"], true), (["latchkey-app"], false)] as [([String], Bool?)])
    func payloadIsWhatTheEncoderWrites(_ audience: [String], _ admin: Bool?) throws {
        let value = claims(audience: audience, admin: admin)
        let payload = try #require(value.payloadJSON)
        let encoded = try JSONEncoder.defaultForJWT.encode(value)
        let parsed = try #require(JSONSerialization.jsonObject(with: Data(payload)) as? NSDictionary)
        #expect(parsed == (try JSONSerialization.jsonObject(with: encoded) as? NSDictionary))
        #expect(try JSONDecoder.defaultForJWT.decode(AccessTokenClaims.self, from: Data(payload)) == value)
        let text = String(decoding: payload, as: UTF8.self)
        let order = ["iss", "aud", "sub", "sid", "iat", "exp", "jti", "adm", "iat_ms"].compactMap { text.range(of: "\"\($0)\":")?.lowerBound }
        #expect(order == order.sorted() && order.count == (admin == nil ? 8 : 9), "members in declaration order: \(text)")
        #expect(text.contains(#""jti":"j\/1""#), "`/` escaped as Foundation escapes it")
    }

    @Test func aTimeOfPartSecondsIsLeftToTheEncoder() {
        var value = claims()
        value.exp = ExpirationClaim(value: Date(timeIntervalSince1970: 1_800_000_900.5))
        #expect(value.payloadJSON == nil)
    }

    @Test func subjectOnlyForItsIssuerAndAudience() {
        let value = claims(audience: ["other", "latchkey-app"])
        #expect(value.subject(issuer: "https://id.example/a", audience: "latchkey-app")?.userID
            == UUID(uuidString: "5C7F2A9E-1B0D-4F53-9D6A-3E2B1C0A9F8E"))
        #expect(value.subject(issuer: "https://id.example/b", audience: "latchkey-app") == nil)
        #expect(value.subject(issuer: "https://id.example/a", audience: "latchkey") == nil)
        var notAUUID = value
        notAUUID.sid = "session-1"
        #expect(notAUUID.subject(issuer: "https://id.example/a", audience: "latchkey-app") == nil)
    }

    @Test func issuedAtMillisecondsPrefersItsOwnClaim() {
        var value = claims()
        #expect(value.issuedAtMilliseconds == 1_800_000_000_123)
        value.iat_ms = nil
        #expect(value.issuedAtMilliseconds == 1_800_000_000_000)
    }
}
