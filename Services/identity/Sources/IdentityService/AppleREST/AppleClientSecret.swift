import FoundationEssentials
import JWTKit

/// Apple's `client_secret`: an ES256 JWT signed with the team's `.p8` key
/// (`iss` team ID, `sub` client ID, `aud` https://appleid.apple.com, `kid` key ID).
/// Each client ID's secret is reused until ten minutes before it expires.
actor AppleClientSecret {
    static let lifetime: TimeInterval = 3600

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim

        func verify(using _: some JWTAlgorithm) throws {}
    }

    private let teamID: String
    private let keyID: String
    private let keys: JWTKeyCollection
    private let clock: IdentityClock
    private var cached: [String: (secret: String, expires: Date)] = [:]

    init(teamID: String, keyID: String, privateKeyPEM: String, clock: IdentityClock) async throws {
        self.teamID = teamID
        self.keyID = keyID
        self.clock = clock
        self.keys = JWTKeyCollection()
        await self.keys.add(ecdsa: try ES256PrivateKey(pem: privateKeyPEM), kid: JWKIdentifier(string: keyID))
    }

    func secret(for clientID: String) async throws -> String {
        let now = self.clock.now()
        if let cached = self.cached[clientID], cached.expires.timeIntervalSince(now) > 600 { return cached.secret }
        let expires = now.addingTimeInterval(Self.lifetime)
        let claims = Claims(
            iss: IssuerClaim(value: self.teamID), sub: SubjectClaim(value: clientID),
            aud: AudienceClaim(value: "https://appleid.apple.com"), iat: IssuedAtClaim(value: now),
            exp: ExpirationClaim(value: expires))
        let secret = try await self.keys.sign(claims, kid: JWKIdentifier(string: self.keyID))
        self.cached[clientID] = (secret, expires)
        return secret
    }
}
