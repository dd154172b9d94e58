import Foundation
import JWTKit
import TokensAPI

/// The claims of an access token (DESIGN.md section 5 tokens): `iss`, `aud`, `sub` (user id),
/// `sid` (session id), `iat`, `exp`, `jti`, `adm: true` for admins only, and `iat_ms`.
struct AccessTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var aud: AudienceClaim
    var sub: SubjectClaim
    var sid: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    var jti: IDClaim
    var adm: Bool?
    /// The issue time in Unix milliseconds, compared with a user's not-before (`RevocationKeys`).
    var iat_ms: Int64?

    var issuedAtMilliseconds: Int64 {
        RevocationKeys.issuedAtMilliseconds(claim: self.iat_ms, issuedAt: self.iat.value)
    }

    /// Nothing beyond the signature here: `AccessTokenVerifier` checks `exp` against the
    /// service's clock, pins `iss` and `aud`, and checks revocation.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
