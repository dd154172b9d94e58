import AuditAPI
import AuditTrail
import TokensAPI
import FoundationEssentials
import Postgres
import Redis
import ServiceProtocol

/// The RPC methods of `tokens` (docs/protocol.md, "tokens methods"), registered on a router.
struct TokenMethods: Sendable {
    let issuance: SessionIssuance
    let rotation: RefreshRotation
    let revocation: SessionRevocation
    let sessions: SessionStore
    let verifier: AccessTokenVerifier
    let keyRing: KeyRing
    let clock: TokenClock

    /// tokens' audit trail (sign-ins, logouts, revocations, refresh reuse).
    var audit: AuditTrail { self.sessions.audit }

    func register(on router: inout RPCRouter) {
        router.registerRaw(Tokens.issue) { (params: IssueParams, context) in
            try await self.issuance.issue(params, context: context).json
        }
        router.registerRaw(Tokens.refresh) { (params: RefreshParams, context) in
            try await self.rotation.refresh(params.refreshToken, proofKey: params.dpopJKT, context: context)
        }
        router.register(Tokens.revoke) { (params: RevokeParams, context) in
            try await self.revocation.revoke(
                sessionID: params.sessionID, userID: params.userID, cause: params.cause ?? .logout, context: context)
        }
        router.register(Tokens.revokeAll) { (params: RevokeAllParams, context) in
            try await self.revocation.revokeAll(
                userID: params.userID, except: params.exceptSessionID, cause: params.cause ?? .logout, context: context)
        }
        router.register(Tokens.revokeUser) { (params: RevokeUserParams, context) in
            try await self.revocation.revokeUser(userID: params.userID, reason: params.reason, context: context)
        }
        router.register(Tokens.auditList) { (params: AuditListParams, _) -> AuditPage in
            try await self.audit.list(params)
        }
        router.register(Tokens.listSessions) { (params: ListSessionsParams, _) in
            SessionList(sessions: try await self.sessions.list(userID: params.userID, now: self.clock.now()))
        }
        router.register(Tokens.jwks) { (_: Empty, _) in
            self.keyRing.jwks
        }
        router.register(Tokens.verify) { (params: VerifyParams, _) in
            try await self.verifier.verify(params.accessToken)
        }
    }
}
