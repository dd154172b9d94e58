import Crypto
import Foundation
import TextCoding

/// Makes DPoP proofs (RFC 9449) for tests: good ones by a P-256 key, and every kind of bad one
/// (another algorithm, a changed header or claim, a private key in the `jwk`).
public struct DPoPProofMaker: Sendable {
    public let key: P256.Signing.PrivateKey

    /// How the proof is signed.
    public enum Signing: Sendable {
        case es256
        /// `alg` `none`, an empty signature.
        case none
        /// `alg` HS256 with this secret (the public key's bytes, as an algorithm-confusion attack would).
        case hs256(secret: [UInt8])
    }

    public init(key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) {
        self.key = key
    }

    /// The key a client keeps in a file (PKCS#8 DER, LatchkeyClient on Linux).
    public init(pkcs8File file: URL) throws {
        self.key = try P256.Signing.PrivateKey(derRepresentation: try Data(contentsOf: file))
    }

    /// The public key as a JWK.
    public var jwk: [String: String] {
        let raw = Array(self.key.publicKey.rawRepresentation)
        return ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(raw[0..<32]), "y": Base64URL.encode(raw[32..<64])]
    }

    /// The RFC 7638 thumbprint, computed with Foundation's encoder (sorted keys, no whitespace).
    public var thumbprint: String {
        let jwk = self.jwk
        let required = ["crv": jwk["crv"]!, "kty": jwk["kty"]!, "x": jwk["x"]!, "y": jwk["y"]!]
        let json = try! JSONSerialization.data(withJSONObject: required, options: [.sortedKeys, .withoutEscapingSlashes])
        return Base64URL.encode(SHA256.hash(data: json))
    }

    /// A proof for `method` and `url`, with `ath` for `accessToken`; `header` and `claims`
    /// change what would be sent before it is signed.
    public func proof(
        method: String, url: String, accessToken: String? = nil, issuedAt: Date = Date(), jti: String = UUID().uuidString,
        signing: Signing = .es256, header editHeader: (inout [String: Any]) -> Void = { _ in },
        claims editClaims: (inout [String: Any]) -> Void = { _ in }
    ) -> String {
        var header: [String: Any] = ["typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk]
        switch signing {
        case .es256: break
        case .none: header["alg"] = "none"
        case .hs256: header["alg"] = "HS256"
        }
        var claims: [String: Any] = [
            "jti": jti, "htm": method, "htu": url, "iat": Int(issuedAt.timeIntervalSince1970),
        ]
        if let accessToken {
            claims["ath"] = Base64URL.encode(SHA256.hash(data: Array(accessToken.utf8)))
        }
        editHeader(&header)
        editClaims(&claims)
        let input = Self.segment(header) + "." + Self.segment(claims)
        switch signing {
        case .es256:
            let signature = try! self.key.signature(for: Array(input.utf8))
            return input + "." + Base64URL.encode(signature.rawRepresentation)
        case .none:
            return input + "."
        case .hs256(let secret):
            let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: secret))
            return input + "." + Base64URL.encode(Array(mac))
        }
    }

    private static func segment(_ object: [String: Any]) -> String {
        Base64URL.encode(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}
