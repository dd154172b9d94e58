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

    /// A key under a fresh random `kid` whose RSA material is made once per `kidPrefix` and
    /// process: a provider's first key, and the strangers of forged tokens. Each mock instance
    /// still publishes its own `kid`s; what is shared is the 2048-bit generation, which costs
    /// hundreds of milliseconds (seconds in a debug build on a busy machine), while a test run
    /// starts a mock per test. `rotate` always makes a fresh key.
    public static func reused(kidPrefix: String) throws -> MockSigningKey {
        let key = try GeneratedKeys.shared.key(for: kidPrefix)
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

/// The RSA material `MockSigningKey.reused` hands out, one key per prefix.
private final class GeneratedKeys: @unchecked Sendable {
    static let shared = GeneratedKeys()
    private let lock = NSLock()
    private var keys: [String: JWTKit.Insecure.RSA.PrivateKey] = [:]

    func key(for prefix: String) throws -> JWTKit.Insecure.RSA.PrivateKey {
        self.lock.lock()
        defer { self.lock.unlock() }
        if let key = self.keys[prefix] { return key }
        let key = try JWTKit.Insecure.RSA.PrivateKey(backing: .init(keySize: .bits2048))
        self.keys[prefix] = key
        return key
    }
}
