import Foundation
import JWTKit
import TextCoding
import _CryptoExtras

/// The mock Apple and Google identity provider: its keys, the tokens it minted and the calls
/// it received. Tests use it in-process; `MockIdentityProviderServer` serves it over HTTP.
public actor MockIdentityProvider {
    /// How the mock behaves; every field may be changed at run time through the setters.
    public struct Configuration: Sendable {
        /// `Cache-Control: max-age` of the JWKS responses, in seconds.
        public var jwksMaxAge: Int = 3600
        public init() {}
    }

    private var keyRings: [MockProvider: MockKeyRing]
    private var configuration: Configuration
    private var unavailableJWKS: Set<MockProvider> = []
    private var failingRevocations = 0
    private var accessTokens: [String: GoogleAccessTokenGrant] = [:]
    /// Apple authorization codes handed out, with whom they were issued to.
    private var appleCodes: [String: AppleAuthorizationCodeGrant] = [:]
    private var calls = MockCallLog()

    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.keyRings = [
            .apple: try MockKeyRing(kidPrefix: "apple"),
            .google: try MockKeyRing(kidPrefix: "google"),
        ]
    }

    // MARK: Keys

    /// The JWKS document of `provider`, counting the fetch; nil while it is made unavailable.
    func servedJWKS(_ provider: MockProvider) throws -> (jwks: [String: [[String: String]]], maxAge: Int)? {
        self.calls.jwksFetches[provider.rawValue, default: 0] += 1
        guard !self.unavailableJWKS.contains(provider) else { return nil }
        return (try self.keyRings[provider]!.jwks(), self.configuration.jwksMaxAge)
    }

    /// The `kid`s currently published for `provider`, oldest first.
    public func publishedKeyIDs(_ provider: MockProvider) -> [String] {
        self.keyRings[provider]!.keys.map(\.kid)
    }

    /// Rolls `provider`'s keys: a new key signs from now on; `retiringOld` withdraws the others.
    @discardableResult
    public func rotateKeys(_ provider: MockProvider, retiringOld: Bool = true) throws -> String {
        try self.keyRings[provider]!.rotate(retiringOld: retiringOld).kid
    }

    /// Makes the JWKS endpoint of `provider` answer 503 (or serve again).
    public func setJWKSAvailable(_ provider: MockProvider, _ available: Bool) {
        if available { self.unavailableJWKS.remove(provider) } else { self.unavailableJWKS.insert(provider) }
    }

    public func setJWKSMaxAge(_ seconds: Int) {
        self.configuration.jwksMaxAge = seconds
    }

    // MARK: Minting

    /// `header` and `claims`, JSON text taken as it is, signed RS256 with `provider`'s active
    /// key: what only the provider could send, for tests of the checks behind a valid signature
    /// (duplicate members, `crit`, odd times). `{kid}` in `header` stands for the active key's id.
    public func signRaw(_ provider: MockProvider, header: String, claims: String) throws -> String {
        let active = self.keyRings[provider]!.active
        let input = Base64URL.encode(Array(header.replacingOccurrences(of: "{kid}", with: active.kid).utf8)) + "."
            + Base64URL.encode(Array(claims.utf8))
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: active.privateKey.pemRepresentation)
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation)
    }

    /// An identity token of `provider` as `request` describes it (or the bad kind it names).
    public func mintIdentityToken(_ provider: MockProvider, _ request: MintRequest) async throws -> String {
        let now = Date()
        var claims = MockIdentityClaims()
        claims.iss = request.issuer ?? provider.issuer
        claims.sub = request.subject
        claims.aud = request.audience
        if provider == .google {
            claims.azp = request.authorizedParty ?? request.audience
            claims.name = request.name
        }
        let issuedAt = request.issuedAt ?? now
        claims.iat = Int(issuedAt.timeIntervalSince1970)
        claims.exp = claims.iat! + (request.lifetimeSeconds ?? 600)
        claims.nonce = request.nonce
        claims.email = request.email
        claims.emailVerified = request.emailVerified ?? (request.email == nil ? nil : .bool(true))
        claims.isPrivateEmail = request.isPrivateEmail
        let active = self.keyRings[provider]!.active
        return try await TokenForger.sign(claims, defect: request.defect, activeKey: active)
    }

    /// A Sign in with Apple server-to-server notification (the JWS Apple posts as `payload`),
    /// signed with Apple's active key (or the bad kind `request.defect` names).
    public func mintAppleNotification(_ request: AppleNotificationMintRequest) async throws -> String {
        let issuedAt = request.issuedAt ?? Date()
        var claims = MockIdentityClaims()
        claims.iss = MockProvider.apple.issuer
        claims.aud = request.audience
        claims.iat = Int(issuedAt.timeIntervalSince1970)
        claims.exp = request.lifetimeSeconds.map { claims.iat! + $0 }
        claims.jti = request.jti ?? UUID().uuidString.lowercased()
        claims.events = try request.eventsClaim(eventTime: issuedAt)
        return try await TokenForger.sign(claims, defect: request.defect, activeKey: self.keyRings[.apple]!.active)
    }

    /// An opaque Google access token that tokeninfo and userinfo will recognise.
    public func mintGoogleAccessToken(_ grant: GoogleAccessTokenGrant) -> String {
        let token = "ya29.mock-" + UUID().uuidString.lowercased()
        self.accessTokens[token] = grant
        return token
    }

    func accessTokenGrant(_ token: String, countingAs endpoint: GoogleEndpoint) -> GoogleAccessTokenGrant? {
        switch endpoint {
        case .tokenInfo: self.calls.tokenInfoCalls += 1
        case .userInfo: self.calls.userInfoCalls += 1
        }
        guard let grant = self.accessTokens[token], grant.expiresAt > Date() else { return nil }
        return grant
    }

    // MARK: Apple REST

    /// An Apple authorization code for `subject`, as Apple hands one to the app together with
    /// the identity token; its exchange answers an id token with that `sub` and `aud`.
    public func mintAppleAuthorizationCode(subject: String, audience: String) -> String {
        let code = "c.mock-" + UUID().uuidString.lowercased()
        self.appleCodes[code] = AppleAuthorizationCodeGrant(subject: subject, audience: audience)
        return code
    }

    /// Records a code exchange. As Apple does, only a code it handed out, exchanged once by the
    /// client it was issued to, gets a refresh token and an id token (signed with Apple's
    /// active key); anything else is refused (nil).
    func exchangeAppleCode(clientID: String, clientSecret: String, code: String, grantType: String) async throws
        -> (refreshToken: String, idToken: String)?
    {
        var answer: (refreshToken: String, idToken: String)?
        if grantType == "authorization_code", let grant = self.appleCodes.removeValue(forKey: code), grant.audience == clientID {
            var claims = MockIdentityClaims()
            claims.iss = MockProvider.apple.issuer
            claims.sub = grant.subject
            claims.aud = grant.audience
            claims.iat = Int(Date().timeIntervalSince1970)
            claims.exp = claims.iat! + 600
            let idToken = try await TokenForger.sign(claims, defect: nil, activeKey: self.keyRings[.apple]!.active)
            answer = ("r.mock-" + UUID().uuidString.lowercased(), idToken)
        }
        self.calls.appleTokenExchanges.append(
            AppleTokenExchangeCall(
                clientID: clientID, clientSecret: clientSecret, code: code, grantType: grantType,
                issuedRefreshToken: answer?.refreshToken))
        return answer
    }

    /// Records a revocation; answers false while told to fail.
    func revokeApple(clientID: String, clientSecret: String, token: String, tokenTypeHint: String?) -> Bool {
        let succeeded = self.failingRevocations == 0
        if !succeeded { self.failingRevocations -= 1 }
        self.calls.appleRevocations.append(
            AppleRevokeCall(
                clientID: clientID, clientSecret: clientSecret, token: token, tokenTypeHint: tokenTypeHint,
                succeeded: succeeded))
        return succeeded
    }

    /// The next `count` revocations answer 503.
    public func failNextRevocations(_ count: Int) {
        self.failingRevocations = count
    }

    // MARK: Records

    public var callLog: MockCallLog { self.calls }

    public func jwksFetchCount(_ provider: MockProvider) -> Int {
        self.calls.jwksFetches[provider.rawValue, default: 0]
    }
}

/// Which Google endpoint looked up an access token.
enum GoogleEndpoint {
    case tokenInfo
    case userInfo
}

/// Who an Apple authorization code was issued to.
struct AppleAuthorizationCodeGrant: Sendable {
    var subject: String
    var audience: String
}
