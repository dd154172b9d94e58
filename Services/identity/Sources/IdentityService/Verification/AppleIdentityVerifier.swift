/// Verifies Sign in with Apple identity tokens: signature (JWKS), `iss`, `aud`, time, nonce.
struct AppleIdentityVerifier: Sendable {
    static let issuer = "https://appleid.apple.com"

    let tokens: SignedTokenVerifier
    let rules: ClaimRules

    /// `name` is what the client passed: Apple puts no name in the token, and sends it to the
    /// app only on the first sign-in.
    func verify(_ token: String, nonce: String?, name: String?) async throws(IdentityError) -> VerifiedIdentity {
        let claims = try await self.tokens.verify(token, as: AppleClaims.self).token
        try self.rules.check(issuer: claims.issuer.value, expires: claims.expires.value, issuedAt: claims.issuedAt.value)
        try ClaimRules.checkNonce(requested: nonce, inToken: claims.nonce)
        guard !claims.subject.value.isEmpty else { throw .invalidToken(reason: "empty subject") }
        return VerifiedIdentity(
            provider: .apple, subject: claims.subject.value, email: claims.email,
            emailVerified: claims.emailVerified?.value ?? false, isPrivateEmail: claims.isPrivateEmail?.value ?? false,
            name: name, audience: claims.audience.value.first(where: self.tokens.audiences.contains) ?? "")
    }

    /// Who the id token Apple returns from an authorization-code exchange names: signature,
    /// `iss`, `aud` and time checked as for a sign-in token. No nonce: the code is single-use
    /// and only our client secret can exchange it.
    func exchangedIdentity(_ token: String) async throws(IdentityError) -> (subject: String, audience: String) {
        let claims = try await self.tokens.verify(token, as: AppleClaims.self).token
        try self.rules.check(issuer: claims.issuer.value, expires: claims.expires.value, issuedAt: claims.issuedAt.value)
        guard !claims.subject.value.isEmpty, let audience = claims.audience.value.first(where: self.tokens.audiences.contains) else {
            throw .invalidToken(reason: "no subject or audience of ours")
        }
        return (claims.subject.value, audience)
    }
}
