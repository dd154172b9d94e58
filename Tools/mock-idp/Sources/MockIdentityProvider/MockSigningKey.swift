import TextCoding
import Foundation
import JWTKit
import _CryptoExtras

/// One RSA key of a provider: its `kid`, the private key that signs, and its public JWK.
public struct MockSigningKey: Sendable {
    public let kid: String
    public let privateKey: JWTKit.Insecure.RSA.PrivateKey

    /// A fresh 2048-bit RS256 key with a random `kid`.
    public static func generate(kidPrefix: String) throws -> MockSigningKey {
        let key = try JWTKit.Insecure.RSA.PrivateKey(backing: .init(keySize: .bits2048))
        return MockSigningKey(kid: "\(kidPrefix)-\(UUID().uuidString.prefix(8).lowercased())", privateKey: key)
    }

    /// The public half as a JWKS entry, shaped like Apple's and Google's (`kty`, `kid`, `use`, `alg`, `n`, `e`).
    public func publicJWK() throws -> [String: String] {
        let primitives = try self.privateKey.publicKey.getKeyPrimitives()
        return [
            "kty": "RSA", "kid": self.kid, "use": "sig", "alg": "RS256",
            "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent),
        ]
    }

    /// The public key in PEM, for the "HS256 signed with the public key" attack.
    public var publicKeyPEM: String { self.privateKey.publicKey.pemRepresentation }
}
