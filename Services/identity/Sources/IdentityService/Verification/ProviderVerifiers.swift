import IdentityAPI
import Logging

/// Every way of proving a provider identity, built from the configuration: one JWKS cache per
/// provider, shared by sign-in and linking.
public struct ProviderVerifiers: Sendable {
    let apple: AppleIdentityVerifier
    let google: GoogleIdentityVerifier
    let googleAccess: GoogleAccessTokenVerifier
    /// Apple's server-to-server notifications, verified with the same keys as its tokens.
    let appleNotifications: AppleNotificationVerifier
    let appleKeys: JWKSCache
    let googleKeys: JWKSCache
    let configuration: IdentityConfiguration

    init(configuration: IdentityConfiguration, http: ProviderHTTP, clock: IdentityClock, logger: Logger) {
        self.configuration = configuration
        self.appleKeys = JWKSCache(
            provider: .apple, url: configuration.apple.jwksURL, http: http, clock: clock,
            refetchInterval: configuration.jwksRefetchInterval, logger: logger)
        self.googleKeys = JWKSCache(
            provider: .google, url: configuration.google.jwksURL, http: http, clock: clock,
            refetchInterval: configuration.jwksRefetchInterval, logger: logger)
        let appleTokens = SignedTokenVerifier(
            cache: self.appleKeys, audiences: configuration.apple.audiences, clock: clock, leeway: configuration.clockLeeway)
        let appleRules = ClaimRules(issuers: [AppleIdentityVerifier.issuer], leeway: configuration.clockLeeway, clock: clock)
        self.apple = AppleIdentityVerifier(tokens: appleTokens, rules: appleRules)
        self.appleNotifications = AppleNotificationVerifier(tokens: appleTokens, rules: appleRules)
        self.google = GoogleIdentityVerifier(
            tokens: SignedTokenVerifier(
                cache: self.googleKeys, audiences: configuration.google.audiences, clock: clock, leeway: configuration.clockLeeway),
            rules: ClaimRules(issuers: GoogleIdentityVerifier.issuers, leeway: configuration.clockLeeway, clock: clock))
        self.googleAccess = GoogleAccessTokenVerifier(
            http: http, tokenInfoURL: configuration.googleTokenInfoURL, userInfoURL: configuration.googleUserInfoURL,
            audiences: configuration.google.audiences)
    }

    /// Verifies whichever token `credential` carries.
    func verify(_ credential: ProviderCredential) async throws(IdentityError) -> VerifiedIdentity {
        switch credential.provider {
        case .apple:
            guard !self.configuration.apple.audiences.isEmpty else { throw .providerNotConfigured(.apple) }
            guard let token = credential.identityToken else { throw .badRequest("identity_token is required") }
            return try await self.apple.verify(token, nonce: credential.nonce, name: credential.fullName)
        case .google:
            guard !self.configuration.google.audiences.isEmpty else { throw .providerNotConfigured(.google) }
            if let token = credential.identityToken {
                return try await self.google.verify(token, nonce: credential.nonce)
            }
            guard let accessToken = credential.accessToken else {
                throw .badRequest("id_token or access_token is required")
            }
            return try await self.googleAccess.verify(accessToken, nonce: credential.nonce)
        }
    }

    /// JWKS fetches started so far per provider (tests and metrics).
    func fetchCounts() async -> [IdentityProvider: Int] {
        [.apple: await self.appleKeys.fetchCount, .google: await self.googleKeys.fetchCount]
    }
}
