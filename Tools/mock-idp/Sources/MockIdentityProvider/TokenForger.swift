import TextCoding
import Foundation
import JWTKit

/// Signs minted claims, or builds the deliberately bad token a `TokenDefect` names.
enum TokenForger {
    static func sign(_ claims: MockIdentityClaims, defect: TokenDefect?, activeKey: MockSigningKey) async throws -> String {
        var claims = claims
        let now = Int(Date().timeIntervalSince1970)
        switch defect {
        case nil:
            return try await rsaSign(claims, key: activeKey, kid: activeKey.kid)
        case .wrongKey:
            return try await rsaSign(claims, key: try MockSigningKey.reused(kidPrefix: "stranger"), kid: activeKey.kid)
        case .unknownKid:
            let stranger = try MockSigningKey.reused(kidPrefix: "unknown")
            return try await rsaSign(claims, key: stranger, kid: stranger.kid)
        case .expired:
            claims.iat = now - 1200
            claims.exp = now - 600
            return try await rsaSign(claims, key: activeKey, kid: activeKey.kid)
        case .notYetValid:
            claims.iat = now + 600
            claims.exp = now + 1200
            return try await rsaSign(claims, key: activeKey, kid: activeKey.kid)
        case .wrongAudience:
            claims.aud = "com.example.some-other-app"
            claims.azp = claims.azp.map { _ in "com.example.some-other-app" }
            return try await rsaSign(claims, key: activeKey, kid: activeKey.kid)
        case .wrongIssuer:
            claims.iss = "https://issuer.example.com"
            return try await rsaSign(claims, key: activeKey, kid: activeKey.kid)
        case .algNone:
            let keys = await JWTKeyCollection().addUnsecuredNone(kid: JWKIdentifier(string: activeKey.kid))
            return try await keys.sign(claims, kid: JWKIdentifier(string: activeKey.kid))
        case .hs256WithPublicKey:
            let keys = await JWTKeyCollection().add(
                hmac: HMACKey(from: activeKey.publicKeyPEM), digestAlgorithm: .sha256,
                kid: JWKIdentifier(string: activeKey.kid))
            return try await keys.sign(claims, kid: JWKIdentifier(string: activeKey.kid))
        case .tamperedPayload:
            let good = try await rsaSign(claims, key: activeKey, kid: activeKey.kid)
            var tampered = claims
            tampered.sub = (claims.sub ?? "") + "-admin"
            let parts = good.split(separator: ".", omittingEmptySubsequences: false)
            let payload = Base64URL.encode(try JSONEncoder().encode(tampered))
            return "\(parts[0]).\(payload).\(parts[2])"
        case .garbage:
            return "this-is.not-a.jwt!"
        case .empty:
            return ""
        }
    }

    private static func rsaSign(_ claims: MockIdentityClaims, key: MockSigningKey, kid: String) async throws -> String {
        let keys = await JWTKeyCollection().add(rsa: key.privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }
}
