import CompactJSON
import FoundationEssentials
import Logging
import TokensAPI
import TokensJWT

/// `tokens.verify`: for internal callers without a JWKS. Checks the signature, pins `iss` and
/// `aud`, then `exp` (by the service's clock; `token_expired`), then revocation
/// (`session_revoked`): the Redis copy, or Postgres when the copy is incomplete or Redis does
/// not answer. A bound token's `cnf.jkt` is in the answer: checking its DPoP proof is the
/// caller's, who has the request it came with.
struct AccessTokenVerifier: Sendable {
    let keyRing: KeyRing
    let issuer: String
    let audience: String
    let sessions: SessionStore
    let revocations: RevocationList
    let clock: TokenClock
    let logger: Logger

    /// How far ahead of this service's clock a token's `nbf` may be.
    static let leeway: Double = 60

    func verify(_ token: String) async throws -> VerifiedAccessToken {
        // RFC 7515/7519 rules behind the signature, as the gateway checks them (SignedTokenRules).
        guard (try? SignedTokenRules.check(token, now: self.clock.now().timeIntervalSince1970, leeway: Self.leeway)) != nil,
            let claims = try? await self.keyRing.verify(token),
            let (userID, sessionID) = claims.subject(issuer: self.issuer, audience: self.audience)
        else { throw TokenError.invalidAccessToken }
        guard self.clock.now() < claims.exp.value else { throw TokenError.accessTokenExpired }
        let issuedAt = claims.iat.value
        let answer: RevocationList.Answer
        do {
            answer = try await self.revocations.check(
                sessionID: sessionID, userID: userID, issuedAtMilliseconds: claims.issuedAtMilliseconds)
        } catch {
            self.logger.warning("Redis revocation check failed; asking Postgres", metadata: ["error": "\(error)"])
            answer = .unknown
        }
        let revoked: Bool
        switch answer {
        case .revoked: revoked = true
        case .live: revoked = false
        case .unknown:
            revoked = try await self.sessions.isRevoked(
                sessionID: sessionID, userID: userID, issuedAt: Date(timeIntervalSince1970: Double(claims.issuedAtMilliseconds) / 1000))
        }
        guard !revoked else { throw TokenError.sessionRevoked }
        return VerifiedAccessToken(
            userID: userID, sessionID: sessionID, isAdmin: claims.adm ?? false,
            issuedAt: Int(issuedAt.timeIntervalSince1970), expiresAt: Int(claims.exp.value.timeIntervalSince1970),
            tokenID: claims.jti.value, dpopJKT: claims.cnf?.jkt)
    }
}
