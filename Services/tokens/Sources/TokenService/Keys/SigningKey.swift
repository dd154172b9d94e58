import TokensAPI
import Crypto
import FoundationEssentials
import JWTKit
import _CryptoExtras

/// One key of the folder: its private key, its RFC 7638 thumbprint as `kid`, and when it
/// was written (the newest key of the configured algorithm signs).
public struct SigningKey: Sendable {
    /// The private key material, by type.
    public enum Material: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
    }

    public let material: Material
    public let kid: String
    /// When it was made: the time its name starts with, else its file's modification time. It
    /// orders the keys (the newest signs); the activation delay counts from when a replica first
    /// read it (`KeyRing`).
    public let createdAt: Date
    /// The file name, to break ties between keys written in the same instant.
    public let fileName: String

    public init(material: Material, createdAt: Date, fileName: String) {
        self.material = material
        self.createdAt = createdAt
        self.fileName = fileName
        self.kid = JWKThumbprint.kid(of: PublicJWK(material))
    }

    public var algorithm: SigningAlgorithm {
        switch self.material {
        case .rsa: .rs256
        case .p256: .es256
        case .ed25519: .eddsa
        }
    }

    /// The public half as published in the JWKS.
    public var publicJWK: PublicJWK {
        var jwk = PublicJWK(self.material)
        jwk.kid = self.kid
        jwk.alg = self.algorithm.jwsName
        jwk.use = "sig"
        return jwk
    }

    /// A new key of `algorithm` (RSA keys are 2048 bits).
    public static func generateMaterial(_ algorithm: SigningAlgorithm) throws -> Material {
        switch algorithm {
        case .rs256: .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        case .es256: .p256(P256.Signing.PrivateKey())
        case .eddsa: .ed25519(Curve25519.Signing.PrivateKey())
        }
    }

    /// Adds this key to `collection` under its `kid`, for signing and verifying.
    func add(to collection: JWTKeyCollection) async throws {
        let kid = JWKIdentifier(string: self.kid)
        switch self.material {
        case .rsa(let key):
            await collection.add(rsa: try Insecure.RSA.PrivateKey(backing: key), digestAlgorithm: .sha256, kid: kid)
        case .p256(let key):
            await collection.add(ecdsa: try ES256PrivateKey(backing: key), kid: kid)
        case .ed25519(let key):
            await collection.add(eddsa: EdDSA.PrivateKey(backing: key), kid: kid)
        }
    }
}

extension SigningKey.Material {
    /// The PEM written to the key folder (PKCS#8, or PKCS#1 for RSA).
    public var pemRepresentation: String {
        switch self {
        case .rsa(let key): key.pemRepresentation
        case .p256(let key): key.pemRepresentation
        case .ed25519(let key): key.pemRepresentation
        }
    }

    /// Reads a private key PEM: RSA (PKCS#1 or PKCS#8), P-256 (SEC1 or PKCS#8) or Ed25519 (PKCS#8).
    public init(pem: String) throws {
        if pem.contains("RSA PRIVATE KEY"), let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            self = .rsa(key)
        } else if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            self = .p256(key)
        } else if let key = try? Curve25519.Signing.PrivateKey(pemRepresentation: pem) {
            self = .ed25519(key)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            self = .rsa(key)
        } else {
            throw SigningKeyError.unreadableKey
        }
    }
}

/// Why a key file was refused.
public enum SigningKeyError: Error, CustomStringConvertible, Equatable {
    case unreadableKey
    case unreadableFile(String)
    case noKeys(String)
    case noKeyForAlgorithm(String)
    /// A folder another user could write a key into (`path`, why).
    case unsafeFolder(String, String)
    /// A folder that cannot be created or locked (`path`, why).
    case unwritableFolder(String, String)
    /// In production, a key file group or others may read (`path`, its octal mode).
    case readableKeyFile(String, String)

    public var description: String {
        switch self {
        case .unreadableKey: "not an RSA, P-256 or Ed25519 private key PEM"
        case .unreadableFile(let name): "\(name): not an RSA, P-256 or Ed25519 private key PEM"
        case .noKeys(let folder): "no signing key in \(folder) (run `tokens keygen`)"
        case .noKeyForAlgorithm(let alg): "no \(alg) key in the signing key folder (run `tokens keygen`)"
        case .unsafeFolder(let path, let reason): "\(path) is \(reason): another user could add a key that would sign"
        case .unwritableFolder(let path, let reason): "cannot create or lock the signing key folder \(path): \(reason)"
        case .readableKeyFile(let path, let mode):
            "\(path) has mode \(mode): group or others may read this signing key (make it 0400 or 0600, owned by the service's user)"
        }
    }
}
