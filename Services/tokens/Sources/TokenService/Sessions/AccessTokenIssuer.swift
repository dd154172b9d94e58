import TextCoding
import TokensAPI
import TokensJWT
import FoundationEssentials
import ServiceProtocol
import JWTKit
import ServiceKit

/// Builds token pairs: signs an access token for a session and pairs it with a refresh token.
struct AccessTokenIssuer: Sendable {
    let keyRing: KeyRing
    let issuer: String
    let audience: String
    let accessTokenTTL: TimeInterval

    /// The session facts an access token carries.
    struct SessionFacts: Sendable {
        var sessionID: UUID
        var userID: UUID
        var isAdmin: Bool
        var expiresAt: Date
        /// The thumbprint of the device key the session is bound to (DPoP); nil: unbound.
        var dpopJKT: String? = nil
    }

    /// A signed access token (never outliving the session) and `refreshToken`, as of `now`.
    func pair(for session: SessionFacts, refreshToken: RefreshToken, now: Date) async throws -> TokenPair {
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let cappedExpiry = min(issuedAt.addingTimeInterval(self.accessTokenTTL), session.expiresAt)
        let expiresAt = Date(timeIntervalSince1970: cappedExpiry.timeIntervalSince1970.rounded(.down))
        let claims = AccessTokenClaims(
            iss: IssuerClaim(value: self.issuer),
            aud: AudienceClaim(value: [self.audience]),
            sub: SubjectClaim(value: session.userID.lowercasedText),
            sid: session.sessionID.lowercasedText,
            iat: IssuedAtClaim(value: issuedAt),
            exp: ExpirationClaim(value: expiresAt),
            jti: IDClaim(value: UUID.random().lowercasedText),
            adm: session.isAdmin ? true : nil,
            // A user's not-before is compared to the millisecond, so that a sign-in after a
            // reactivation in the same second is not refused; `iat` and `exp` stay whole seconds.
            iat_ms: RevocationKeys.milliseconds(now, rounding: .down),
            cnf: session.dpopJKT.map(AccessTokenClaims.Confirmation.init(jkt:)))
        return TokenPair(
            accessToken: try await self.keyRing.sign(claims),
            tokenType: session.dpopJKT == nil ? "Bearer" : "DPoP",
            expiresIn: max(0, Int(expiresAt.timeIntervalSince(issuedAt))),
            expiresAt: RFC3339.format(expiresAt),
            refreshToken: refreshToken.text,
            refreshExpiresAt: RFC3339.format(session.expiresAt),
            sessionID: session.sessionID,
            userID: session.userID,
            isAdmin: session.isAdmin)
    }
}
