import JWTKit

/// The claims of a latchkey access token as plain values, for tests that sign their own
/// tokens (forged, expired, foreign) to show what a verifier refuses.
public struct TestAccessClaims: JWTPayload {
    public var iss: String
    public var aud: String
    public var sub: String
    public var sid: String
    public var iat: Int
    public var exp: Int
    public var jti: String
    public var adm: Bool?

    public init(iss: String, aud: String, sub: String, sid: String, iat: Int, exp: Int, jti: String, adm: Bool? = nil) {
        self.iss = iss
        self.aud = aud
        self.sub = sub
        self.sid = sid
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.adm = adm
    }

    /// Nothing: the verifier under test makes every check.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
