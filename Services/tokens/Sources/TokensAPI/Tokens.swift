import AuditAPI
import ServiceProtocol

/// Every method of tokens (docs/protocol.md, "tokens methods"): the service registers its
/// handlers through these, and callers (the gateway, other services, the operator CLI, tests
/// and benchmarks) call through them.
public enum Tokens {
    /// Opens a session. Not idempotent: a retry opens a second one.
    public static let issue = RPCMethod<IssueParams, TokenPair>("tokens.issue")
    /// Idempotent within `REFRESH_REUSE_GRACE`: every retry gets the identical pair.
    public static let refresh = RPCMethod<RefreshParams, TokenPair>("tokens.refresh")
    public static let revoke = RPCMethod<RevokeParams, RevokeResult>("tokens.revoke")
    public static let revokeAll = RPCMethod<RevokeAllParams, RevokeAllResult>("tokens.revokeAll")
    public static let revokeUser = RPCMethod<RevokeUserParams, RevokeUserResult>("tokens.revokeUser")
    public static let listSessions = RPCMethod<ListSessionsParams, SessionList>("tokens.listSessions")
    public static let jwks = RPCMethod<Empty, PublicJWKS>("tokens.jwks")
    public static let verify = RPCMethod<VerifyParams, VerifiedAccessToken>("tokens.verify")
    /// A page of tokens' audit trail, newest first (DESIGN.md section 9.3).
    public static let auditList = RPCMethod<AuditListParams, AuditPage>("tokens.audit.list")

    /// Every method's name, for a check against the registered router and the docs.
    public static let methodNames: [String] = [
        issue.name, refresh.name, revoke.name, revokeAll.name, revokeUser.name, listSessions.name, jwks.name, verify.name, auditList.name,
    ]
}
