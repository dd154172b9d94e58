import Crypto
import Foundation
import ServiceKit
import _CryptoExtras

/// A public key as a JSON Web Key (RFC 7517), the shape the `jwks` method returns.
public struct PublicJWK: Codable, Sendable, Hashable {
    public var kty: String
    public var kid: String?
    public var use: String?
    public var alg: String?
    /// RSA modulus and exponent.
    public var n: String?
    public var e: String?
    /// EC / OKP curve and coordinates.
    public var crv: String?
    public var x: String?
    public var y: String?

    init(_ material: SigningKey.Material) {
        switch material {
        case .rsa(let key):
            // An RSA key built by swift-crypto always has primitives.
            let primitives = try! key.publicKey.getKeyPrimitives()
            self.kty = "RSA"
            self.n = Base64URL.encode(primitives.modulus)
            self.e = Base64URL.encode(primitives.publicExponent)
        case .p256(let key):
            let point = Array(key.publicKey.x963Representation)  // 0x04 || x || y
            self.kty = "EC"
            self.crv = "P-256"
            self.x = Base64URL.encode(point[1..<33])
            self.y = Base64URL.encode(point[33..<65])
        case .ed25519(let key):
            self.kty = "OKP"
            self.crv = "Ed25519"
            self.x = Base64URL.encode(key.publicKey.rawRepresentation)
        }
    }
}

/// The JWK Set document: `{"keys":[...]}`.
public struct PublicJWKS: Codable, Sendable, Hashable {
    public var keys: [PublicJWK]
}

/// RFC 7638: the SHA-256 of the key's required members in lexicographic order, no whitespace.
enum JWKThumbprint {
    static func kid(of jwk: PublicJWK) -> String {
        let members: String
        switch jwk.kty {
        case "RSA": members = #"{"e":"\#(jwk.e!)","kty":"RSA","n":"\#(jwk.n!)"}"#
        case "EC": members = #"{"crv":"\#(jwk.crv!)","kty":"EC","x":"\#(jwk.x!)","y":"\#(jwk.y!)"}"#
        default: members = #"{"crv":"\#(jwk.crv!)","kty":"\#(jwk.kty)","x":"\#(jwk.x!)"}"#
        }
        return Base64URL.encode(SHA256.hash(data: Data(members.utf8)))
    }
}
