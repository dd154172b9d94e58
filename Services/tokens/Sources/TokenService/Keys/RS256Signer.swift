import TextCoding
import CLibCrypto
import FoundationEssentials
import JWTKit
import TokensJWT
import ServiceKit

/// Signs RS256 access tokens with the system's OpenSSL (`libcrypto`, which libpq already
/// loads) instead of JWTKit's BoringSSL. On CPUs with AVX-512 IFMA, OpenSSL's RSA-2048
/// private operation takes less than half the time, and the signature is the largest single
/// cost of a refresh (see docs/benchmarks.md). The token is the same compact JWS JWTKit
/// writes (header `alg`, `kid`, `typ`; the claims JSON JWTKit's encoder writes, by hand:
/// `AccessTokenClaims.payloadJSON`); verifying stays with JWTKit.
///
/// `@unchecked Sendable`: the key is only read after `init`, and OpenSSL 3 allows concurrent
/// signing with one `EVP_PKEY`; each signature uses its own digest context.
final class RS256Signer: @unchecked Sendable {
    private struct Header: Encodable {
        var alg = "RS256"
        var kid: String
        var typ = "JWT"
    }

    private let key: OpaquePointer
    /// The first segment of every token: the base64url of the header.
    private let headerSegment: String

    /// The signer for `pem` (PKCS#1 or PKCS#8), naming `kid` in every header.
    init(pem: String, kid: String) throws {
        let key: OpaquePointer? = pem.withCString { text in
            guard let bio = BIO_new_mem_buf(text, -1) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw SigningKeyError.unreadableKey }
        self.key = key
        self.headerSegment = Base64URL.encode(try JSONEncoder().encode(Header(kid: kid)))
    }

    deinit { EVP_PKEY_free(self.key) }

    /// `claims` as a signed compact JWS.
    func sign(_ claims: AccessTokenClaims) throws -> String {
        let payload = try claims.payloadJSON ?? Array(JSONEncoder.defaultForJWT.encode(claims))
        let signingInput = self.headerSegment + "." + Base64URL.encode(payload)
        return signingInput + "." + Base64URL.encode(try self.signature(of: Array(signingInput.utf8)))
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 (OpenSSL's default padding for an RSA key).
    private func signature(of input: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw Self.failure }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, self.key) == 1,
            EVP_DigestSign(context, nil, &length, input, input.count) == 1
        else { throw Self.failure }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, input, input.count) == 1 else { throw Self.failure }
        return Array(signature.prefix(length))
    }

    private static let failure = JWTError.generic(identifier: "RS256", reason: "OpenSSL could not sign")
}
