/// Verifies Google ID tokens: signature (JWKS), `iss`, `aud` and `azp`, time, nonce.
struct GoogleIdentityVerifier: Sendable {
    static let issuers: Set<String> = ["accounts.google.com", "https://accounts.google.com"]

    let tokens: SignedTokenVerifier
    let rules: ClaimRules

    func verify(_ token: String, nonce: String?) async throws(IdentityError) -> VerifiedIdentity {
        let claims = try await self.tokens.verify(token, as: GoogleClaims.self).token
        try self.rules.check(issuer: claims.issuer.value, expires: claims.expires.value, issuedAt: claims.issuedAt.value)
        // A token presented by another client of the same Google project is not ours.
        guard self.tokens.audiences.contains(claims.authorizedPresenter) else { throw .invalidToken(reason: "azp") }
        try ClaimRules.checkNonce(requested: nonce, inToken: claims.nonce)
        let subject = claims.subject.value
        guard !subject.isEmpty, subject.utf8.count <= 255 else { throw .invalidToken(reason: "subject") }
        let name = claims.name ?? [claims.givenName, claims.familyName].compactMap { $0 }.joined(separator: " ")
        return VerifiedIdentity(
            provider: .google, subject: subject, email: claims.email,
            emailVerified: claims.emailVerified?.value ?? false, isPrivateEmail: false,
            name: name.isEmpty ? nil : name,
            audience: claims.audience.value.first(where: self.tokens.audiences.contains) ?? "")
    }
}
