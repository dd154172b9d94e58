import CompactJSON
import Crypto
import TextCoding

/// A DPoP proof (RFC 9449 section 4), its signature verified: a compact JWS keeping
/// `SignedTokenRules`, `typ` `dpop+jwt`, `alg` ES256 (no other algorithm, so never `none`, an
/// HMAC or RSA), the public key in `jwk`, and the claims `jti`, `htm`, `htu`, `iat` (`ath`
/// when it goes with an access token). What the proof is checked against (the request, the
/// time, the token) is `DPoPProofCheck`'s; the replay of its `jti`, the caller's.
public struct DPoPProof: Sendable, Equatable {
    /// The RFC 7638 thumbprint of the signing key (`jkt`).
    public var thumbprint: String
    /// `jti`: unique per proof, for the replay check.
    public var tokenID: String
    /// `htm`: the HTTP method the proof is for.
    public var method: String
    /// `htu`: the URL the proof is for, as the client wrote it.
    public var targetURI: String
    /// `iat`, Unix seconds.
    public var issuedAt: Int64
    /// `ath`: the base64url SHA-256 of the access token it goes with.
    public var accessTokenHash: String?

    /// The longest proof read: a P-256 proof is about 500 bytes; a longer header value is
    /// refused before any parsing.
    public static let maximumLength = 4096
    /// The longest `jti`, `htm` or `htu` accepted.
    static let maximumClaimLength = 1024

    /// Parses `text` and verifies its signature with the key in its header. `now` and
    /// `leeway` are for `SignedTokenRules`' `nbf` (a proof has no reason to carry one).
    public init(_ text: String, now: Double, leeway: Double) throws(DPoPProofError) {
        guard text.utf8.count <= Self.maximumLength else { throw .malformed("longer than \(Self.maximumLength) bytes") }
        let parts: SignedTokenRules.Parts
        do {
            parts = try SignedTokenRules.parse(text, now: now, leeway: leeway)
        } catch {
            throw .malformed(error.description)
        }
        guard case .string("dpop+jwt")? = parts.header["typ"] else { throw .wrongType }
        guard case .string("ES256")? = parts.header["alg"] else { throw .unsupportedAlgorithm }
        guard let jwk = parts.header["jwk"] else { throw .badKey("absent") }
        let key = try DPoPPublicKey(jwk: jwk)
        guard let signatureBytes = Base64URL.decode(String(parts.signature)), signatureBytes.count == 64,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            key.key.isValidSignature(signature, for: Array(parts.signingInput.utf8))
        else { throw .badSignature }
        let claims = parts.claims
        self.thumbprint = key.thumbprint
        self.tokenID = try Self.string(claims, "jti")
        self.method = try Self.string(claims, "htm")
        self.targetURI = try Self.string(claims, "htu")
        // SignedTokenRules has checked that an `iat` is a whole number of seconds in range.
        guard case .number(let iat)? = claims["iat"], let issuedAt = SignedTokenRules.wholeSeconds(iat) else {
            throw .missingClaim("iat")
        }
        self.issuedAt = issuedAt
        switch claims["ath"] {
        case nil: self.accessTokenHash = nil
        case .string(let hash)?: self.accessTokenHash = hash
        default: throw .missingClaim("ath")
        }
    }

    /// A claim that must be a non-empty string of bounded length.
    private static func string(_ claims: [String: CompactJSONNode], _ name: String) throws(DPoPProofError) -> String {
        guard case .string(let value)? = claims[name], !value.isEmpty, value.utf8.count <= Self.maximumClaimLength else {
            throw .missingClaim(name)
        }
        return value
    }

    /// `ath` for `accessToken`: base64url SHA-256 of its ASCII bytes (RFC 9449 section 4.2).
    public static func accessTokenHash(of accessToken: String) -> String {
        Base64URL.encode(SHA256.hash(data: Array(accessToken.utf8)))
    }
}
