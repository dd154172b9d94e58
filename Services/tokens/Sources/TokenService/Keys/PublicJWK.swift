import TextCoding
import Crypto
import FoundationEssentials
import ServiceKit
import TokensAPI
import _CryptoExtras

extension PublicJWK {
    /// The public half of a signing key, without `kid`, `use` and `alg` (the key ring adds them).
    init(_ material: SigningKey.Material) {
        switch material {
        case .rsa(let key):
            // An RSA key built by swift-crypto always has primitives.
            let primitives = try! key.publicKey.getKeyPrimitives()
            self.init(kty: "RSA", n: Base64URL.encode(primitives.modulus), e: Base64URL.encode(primitives.publicExponent))
        case .p256(let key):
            let point = Array(key.publicKey.x963Representation)  // 0x04 || x || y
            self.init(kty: "EC", crv: "P-256", x: Base64URL.encode(point[1..<33]), y: Base64URL.encode(point[33..<65]))
        case .ed25519(let key):
            self.init(kty: "OKP", crv: "Ed25519", x: Base64URL.encode(key.publicKey.rawRepresentation))
        }
    }
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
