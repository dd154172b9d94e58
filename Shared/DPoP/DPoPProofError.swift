/// Why a DPoP proof (RFC 9449) is refused. Every case answers the client the same way (401
/// `invalid_dpop_proof`); the case goes to the log at debug level, for whoever looks into it.
public enum DPoPProofError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No proof where the request needs one, or more than one `DPoP` header.
    case missing
    /// Not a compact JWS keeping `SignedTokenRules`, or longer than `DPoPProof.maximumLength`.
    case malformed(String)
    /// `typ` is not `dpop+jwt`.
    case wrongType
    /// `alg` is not ES256 (`none`, HS*, RS* and the rest are refused).
    case unsupportedAlgorithm
    /// The `jwk` is not a public P-256 key, or holds a private part (`d`).
    case badKey(String)
    /// A claim is missing or of the wrong type.
    case missingClaim(String)
    /// The signature does not verify with the header's key.
    case badSignature
    /// `htm` is not the request's method.
    case wrongMethod
    /// `htu` is not the URL the client called.
    case wrongURI
    /// `iat` is older than the maximum age, or in the future, beyond the leeway.
    case stale
    /// `ath` is missing, or not the hash of the access token sent with it.
    case wrongAccessTokenHash
    /// The proof's key is not the one the session is bound to.
    case wrongKey
    /// The proof's `jti` was seen before within its window.
    case replayed

    public var description: String {
        switch self {
        case .missing: "no single DPoP proof"
        case .malformed(let reason): "malformed: \(reason)"
        case .wrongType: "typ is not dpop+jwt"
        case .unsupportedAlgorithm: "alg is not ES256"
        case .badKey(let reason): "jwk: \(reason)"
        case .missingClaim(let name): "\(name) is missing or not of its type"
        case .badSignature: "the signature does not verify"
        case .wrongMethod: "htm is not the request's method"
        case .wrongURI: "htu is not the request's URL"
        case .stale: "iat is outside the accepted window"
        case .wrongAccessTokenHash: "ath is missing or not the access token's hash"
        case .wrongKey: "signed by another key than the session's"
        case .replayed: "jti was used before"
        }
    }
}
