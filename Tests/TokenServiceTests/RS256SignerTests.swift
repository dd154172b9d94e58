import TextCoding
import Foundation
import JWTKit
import ServiceKit
import Testing
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

    @Test func aPEMThatIsNoKeyIsRefused() {
        #expect(throws: SigningKeyError.self) { try RS256Signer(pem: "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n", kid: "k") }
    }
}
