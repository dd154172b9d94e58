import JWTKit

/// Apple's claims as JWTKit decodes them (`email_verified` / `is_private_email` as string or
/// bool). Its own `verify` is deliberately empty: issuer and time are checked by `ClaimRules`,
/// which allows a small clock leeway that `AppleIdentityToken.verify` does not.
struct AppleClaims: JWTIdentityToken {
    let token: AppleIdentityToken

    init(from decoder: any Decoder) throws {
        self.token = try AppleIdentityToken(from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        try self.token.encode(to: encoder)
    }

    var audience: AudienceClaim { self.token.audience }

    func verify(using _: some JWTAlgorithm) throws {}
}

/// Google's claims as JWTKit decodes them; see `AppleClaims` for why `verify` is empty.
struct GoogleClaims: JWTIdentityToken {
    let token: GoogleIdentityToken

    init(from decoder: any Decoder) throws {
        self.token = try GoogleIdentityToken(from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        try self.token.encode(to: encoder)
    }

    var audience: AudienceClaim { self.token.audience }

    func verify(using _: some JWTAlgorithm) throws {}
}

/// Decodes any payload without checking anything; used only to read the header's `kid`
/// and `alg` through JWTKit's parser before the real verification, when the header is not in
/// the plain spelling `JWSHeader` reads by hand.
struct UnverifiedPayload: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using _: some JWTAlgorithm) throws {}
}
