import AuditAPI
import AuditTrail
import TextCoding
import TokensAPI
import FoundationEssentials
import ServiceKit
import ServiceProtocol

/// `tokens.issue`: a new session with its first token pair, ending `REFRESH_TOKEN_TTL` from now.
struct SessionIssuance: Sendable {
    let sessions: SessionStore
    let issuer: AccessTokenIssuer
    /// Where the first refresh token's session is remembered for its refresh.
    let recentSessions: RecentSessions
    let clock: TokenClock
    let refreshTokenTTL: TimeInterval

    /// Device names are for people's session lists; longer ones are cut.
    static let maximumDeviceNameLength = 200

    /// A sign-in's session and its record (`sign_in`) are made by one statement: both or neither.
    func issue(_ params: IssueParams, context: RPCRequestContext? = nil) async throws -> TokenPair {
        let now = self.clock.now()
        let deviceName = params.deviceName.map { name in
            String(String.UnicodeScalarView(name.unicodeScalars.filter { $0.properties.generalCategory != .control })
                .prefix(Self.maximumDeviceNameLength))
        }
        let session = AccessTokenIssuer.SessionFacts(
            sessionID: UUID.random(), userID: params.userID, isAdmin: params.isAdmin ?? false,
            expiresAt: now.addingTimeInterval(self.refreshTokenTTL), dpopJKT: params.dpopJKT)
        let refreshToken = RefreshToken()
        let pair = try await self.issuer.pair(for: session, refreshToken: refreshToken, now: now)
        let event = params.signIn.map { signIn in
            var details: [String: AuditValue] = [
                "provider": .string(signIn.provider), "new_user": .bool(signIn.newUser), "bound": .bool(session.dpopJKT != nil),
            ]
            if let deviceName { details["device_name"] = .string(deviceName) }
            return AuditEntry(.signIn, userID: session.userID, sessionID: session.sessionID, context: context, details: details)
        }
        try await self.sessions.create(
            sessionID: session.sessionID, userID: session.userID, isAdmin: session.isAdmin, deviceName: deviceName,
            dpopJKT: session.dpopJKT, refreshTokenHash: refreshToken.hash, now: now, expiresAt: session.expiresAt, event: event)
        self.recentSessions.remember(session, forTokenHash: refreshToken.hash)
        return pair
    }
}
