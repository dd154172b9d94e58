import TextCoding
import Foundation
import JWTKit
import ServiceKit
import Testing
import ServiceProtocol
import TokensAPI
import TokensJWT
import _CryptoExtras

@testable import TokenService

/// Tokens signed with OpenSSL are the compact JWS JWTKit writes and verifies.
@Suite struct RS256SignerTests {
    @Test func aTokenSignedWithOpenSSLVerifiesWithJWTKitAndNamesItsKey() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let signer = try RS256Signer(pem: key.pemRepresentation, kid: "key-1")
        let now = Date(timeIntervalSince1970: 1_795_317_839)
        let claims = AccessTokenClaims(
            iss: IssuerClaim(value: "https://issuer.example"), aud: AudienceClaim(value: ["app"]),
            sub: SubjectClaim(value: "user"), sid: "session", iat: IssuedAtClaim(value: now),
            exp: ExpirationClaim(value: now.addingTimeInterval(900)), jti: IDClaim(value: "jti"), adm: true)
        let token = try signer.sign(claims)

        let collection = JWTKeyCollection()
        await collection.add(rsa: try Insecure.RSA.PublicKey(backing: key.publicKey), digestAlgorithm: .sha256, kid: "key-1")
        let verified = try await collection.verify(token, as: AccessTokenClaims.self)
        #expect(verified.sid == "session")
        #expect(verified.adm == true)
        #expect(verified.exp.value == now.addingTimeInterval(900))

        let header = try #require(Base64URL.decode(String(token.prefix { $0 != "." })))
        let fields = try JSONSerialization.jsonObject(with: Data(header)) as? [String: String]
        #expect(fields == ["alg": "RS256", "kid": "key-1", "typ": "JWT"])

        let other = try RS256Signer(pem: try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation, kid: "key-1")
        await #expect(throws: (any Error).self) { try await collection.verify(try other.sign(claims), as: AccessTokenClaims.self) }
    }

    /// Foundation's encoder writes an object's members in an order that changes from run to
    /// run: the payloads are compared as JSON values, and read back as the claims.
    @Test func theHandWrittenPayloadIsTheJSONJWTKitsEncoderWrites() throws {
        let now = Date(timeIntervalSince1970: 1_795_317_839)
        var claims = AccessTokenClaims(
            iss: IssuerClaim(value: "https://issuer.example/a\"b"), aud: AudienceClaim(value: ["app"]),
            sub: SubjectClaim(value: UUID().lowercasedText), sid: UUID().lowercasedText, iat: IssuedAtClaim(value: now),
            exp: ExpirationClaim(value: now.addingTimeInterval(900)), jti: IDClaim(value: "jti\u{1}é"), adm: true,
            iat_ms: 1_795_317_839_123)
        try Self.expectSameJSON(claims)
        #expect(String(decoding: try #require(claims.payloadJSON), as: UTF8.self).hasPrefix(#"{"iss":"https:\/\/issuer.example\/a\"b","aud":"app","#))
        claims.adm = nil
        claims.iat_ms = nil
        claims.aud = AudienceClaim(value: ["app", "console/admin"])
        try Self.expectSameJSON(claims)
        claims.adm = false
        claims.iat = IssuedAtClaim(value: Date(timeIntervalSince1970: 0))
        try Self.expectSameJSON(claims)
        // A bound session's token (DPoP): `cnf` last, as declared.
        claims.cnf = .init(jkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        try Self.expectSameJSON(claims)
        #expect(String(decoding: try #require(claims.payloadJSON), as: UTF8.self).hasSuffix(#","cnf":{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}}"#))
        // A time that is not whole seconds is left to the encoder.
        claims.exp = ExpirationClaim(value: now.addingTimeInterval(0.5))
        #expect(claims.payloadJSON == nil)
    }

    private static func expectSameJSON(_ claims: AccessTokenClaims) throws {
        let written = try #require(claims.payloadJSON)
        let encoded = try JSONEncoder.defaultForJWT.encode(claims)
        let writtenValue = try JSONSerialization.jsonObject(with: Data(written)) as? NSDictionary
        let encodedValue = try JSONSerialization.jsonObject(with: encoded) as? NSDictionary
        #expect(writtenValue != nil && writtenValue == encodedValue)
        #expect(try JSONDecoder.defaultForJWT.decode(AccessTokenClaims.self, from: Data(written)) == claims)
    }

    @Test func aPairsHandWrittenJSONIsTheBytesTheRPCEncoderWrites() throws {
        for admin in [false, true] {
            let pair = TokenPair(
                accessToken: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln", tokenType: "Bearer", expiresIn: 900,
                expiresAt: "2026-11-26T15:00:00Z", refreshToken: RefreshToken().text, refreshExpiresAt: "2027-01-25T15:00:00Z",
                sessionID: UUID(), userID: UUID(), isAdmin: admin)
            #expect(pair.json.utf8 == Array(try RPCJSON.encode(pair)))
            #expect(try RPCJSON.decode(TokenPair.self, from: pair.json.bytes) == pair)
        }
    }

    @Test func aPEMThatIsNoKeyIsRefused() {
        #expect(throws: SigningKeyError.self) { try RS256Signer(pem: "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n", kid: "k") }
    }
}
