import Foundation
import JWTKit

/// The claims of an access token (DESIGN.md section 5 tokens): `iss`, `aud`, `sub` (user id),
/// `sid` (session id), `iat`, `exp`, `jti`, and `adm: true` for admins only.
struct AccessTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var aud: AudienceClaim
    var sub: SubjectClaim
    var sid: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    var jti: IDClaim
    var adm: Bool?

    /// Nothing beyond the signature here: `AccessTokenVerifier` checks `exp` against the
    /// service's clock, pins `iss` and `aud`, and checks revocation.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
