import CompactJSON
import FoundationEssentials
import JWTKit

/// Checks a provider JWT's signature against the provider's JWKS with the algorithm pinned to
/// the key (no `none`, no HS/RS confusion) and its `aud` against our client IDs.
struct SignedTokenVerifier: Sendable {
    /// Larger than any real identity token; bounds the work an attacker can cause.
    static let maximumTokenLength = 16 * 1024

    let cache: JWKSCache
    let audiences: [String]
    /// The clock and leeway `nbf` is checked with (the provider's clock may run ahead of ours).
    var clock: IdentityClock = .system
    var leeway: TimeInterval = 60

    func verify<Claims: JWTIdentityToken>(_ token: String, as _: Claims.Type) async throws(IdentityError) -> Claims {
        guard !token.isEmpty, token.utf8.count <= Self.maximumTokenLength else {
            throw .invalidToken(reason: "empty or oversized token")
        }
        // RFC 7515/7519 rules behind the signature, as every reader of tokens keeps them
        // (SignedTokenRules): an unknown crit, a repeated member name, a time that is not whole
        // seconds in range, an nbf ahead. Checked first, so JWTKit never reads such a token.
        do {
            try SignedTokenRules.check(token, now: self.clock.now().timeIntervalSince1970, leeway: self.leeway)
        } catch {
            throw .invalidToken(reason: "\(error)")
        }
        let bytes = Array(token.utf8)
        let header = try Self.header(of: token, bytes: bytes)
        guard let kid = header.kid, let algorithm = header.alg else { throw .invalidToken(reason: "no kid or alg") }
        let key = try await self.cache.key(for: kid)
        guard algorithm == key.algorithm else { throw .invalidToken(reason: "algorithm \(algorithm) is not the key's") }
        do {
            return try await key.keys.verify(bytes, as: Claims.self, expectedAudiences: self.audiences)
        } catch {
            throw .invalidToken(reason: Self.reason(error))
        }
    }

    /// The token's `kid` and `alg`: read by hand from a header in the plain spelling (the rest
    /// of the token is JWTKit's to read when it verifies), else through JWTKit's parser, which
    /// reads the whole token. Both read a plain header alike: one object, each member once.
    static func header(of token: String, bytes: [UInt8]) throws(IdentityError) -> JWSHeader {
        if let plain = JWSHeader(plainHeaderOf: token) { return plain }
        do {
            let header = try CompactJWTJSONDecoder.parser.parse(bytes, as: UnverifiedPayload.self).header
            return JWSHeader(kid: header.kid, alg: header.alg)
        } catch {
            throw .invalidToken(reason: "malformed token")
        }
    }

    /// A short reason for the log, never the token.
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? JWTError else { return "verification failed" }
        switch error.errorType {
        case .signatureVerificationFailed: return "bad signature"
        case .claimVerificationFailure: return "claim: \(error.reason ?? "")"
        case .malformedToken: return "malformed token"
        default: return "verification failed (\(error.errorType))"
        }
    }
}
