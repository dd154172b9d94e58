import FoundationEssentials
import JWTKit
import Logging

/// One fetched JWKS: the keys as a JWTKit collection, the algorithm each `kid` is pinned to,
/// and until when the set is fresh.
struct ProviderKeySet: Sendable {
    /// The algorithms a provider key may be used with; anything else in a JWKS is ignored.
    static let acceptedAlgorithms: Set<String> = ["RS256"]

    let keys: JWTKeyCollection
    let algorithms: [String: String]
    let expiresAt: Date

    /// Builds the set from a JWKS document, skipping keys without a `kid` or with another algorithm.
    static func make(from jwks: JWKS, expiresAt: Date, logger: Logger) async -> ProviderKeySet {
        let keys = JWTKeyCollection(defaultJWTParser: CompactJWTJSONDecoder.parser)
        var algorithms: [String: String] = [:]
        for jwk in jwks.keys {
            guard let kid = jwk.keyIdentifier?.string else { continue }
            let algorithm = jwk.algorithm?.rawValue ?? (jwk.keyType == .rsa ? "RS256" : "")
            guard Self.acceptedAlgorithms.contains(algorithm), jwk.keyType == .rsa else {
                logger.debug("Ignoring provider key", metadata: ["jwks.kid": "\(kid)", "jwks.alg": "\(algorithm)"])
                continue
            }
            var pinned = jwk
            pinned.algorithm = JWK.Algorithm(rawValue: algorithm)
            // Only the public key verifies a provider's tokens. A private part in a published set
            // is ignored, not read: JWTKit would build a private key from it, and swift-crypto
            // stops the process on a private exponent that does not fit the modulus (the `jwks`
            // fuzz target found one).
            pinned.privateExponent = nil
            pinned.prime1 = nil
            pinned.prime2 = nil
            do {
                try await keys.add(jwk: pinned)
                algorithms[kid] = algorithm
            } catch {
                logger.warning("Unusable provider key", metadata: ["jwks.kid": "\(kid)"])
            }
        }
        return ProviderKeySet(keys: keys, algorithms: algorithms, expiresAt: expiresAt)
    }
}
