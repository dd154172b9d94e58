import FoundationEssentials
import JWTKit
import TokensAPI

/// The claims of an access token (DESIGN.md section 5 tokens): `iss`, `aud`, `sub` (user id),
/// `sid` (session id), `iat`, `exp`, `jti`, `adm: true` for admins only, and `iat_ms`. `tokens`
/// signs them and both `tokens` and the gateway verify them, through this one type. A session
/// bound to a device's key (DPoP, DESIGN.md section 9.2) adds `cnf` `{"jkt": thumbprint}`.
public struct AccessTokenClaims: JWTPayload, Equatable {
    public var iss: IssuerClaim
    public var aud: AudienceClaim
    public var sub: SubjectClaim
    public var sid: String
    public var iat: IssuedAtClaim
    public var exp: ExpirationClaim
    public var jti: IDClaim
    public var adm: Bool?
    /// The issue time in Unix milliseconds, compared with a user's not-before (`RevocationKeys`).
    public var iat_ms: Int64?
    /// The key the token is bound to (RFC 9449 section 6.1); nil for a bearer token.
    public var cnf: Confirmation?

    /// `cnf`: the RFC 7638 thumbprint of the key whose proofs must go with the token.
    public struct Confirmation: Codable, Equatable, Sendable {
        public var jkt: String

        public init(jkt: String) {
            self.jkt = jkt
        }
    }

    public init(
        iss: IssuerClaim, aud: AudienceClaim, sub: SubjectClaim, sid: String, iat: IssuedAtClaim, exp: ExpirationClaim,
        jti: IDClaim, adm: Bool? = nil, iat_ms: Int64? = nil, cnf: Confirmation? = nil
    ) {
        self.iss = iss
        self.aud = aud
        self.sub = sub
        self.sid = sid
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.adm = adm
        self.iat_ms = iat_ms
        self.cnf = cnf
    }

    /// `iat_ms`, or `iat` in milliseconds for a token signed before that claim existed.
    public var issuedAtMilliseconds: Int64 {
        RevocationKeys.issuedAtMilliseconds(claim: self.iat_ms, issuedAt: self.iat.value)
    }

    /// The user and session, when the token was issued by `issuer` for `audience` and names
    /// both by UUID; nil otherwise. Time checks are the verifier's (each has its own clock and
    /// leeway), as is revocation.
    public func subject(issuer: String, audience: String) -> (userID: UUID, sessionID: UUID)? {
        guard self.iss.value == issuer, self.aud.value.contains(audience),
            let userID = UUID(uuidString: self.sub.value), let sessionID = UUID(uuidString: self.sid)
        else { return nil }
        return (userID, sessionID)
    }

    /// Nothing beyond the signature here: see `subject(issuer:audience:)`.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
